#!/usr/bin/env bash
# Where the writer's time goes (issue 26), kept current: two bench runs with JFR on the writer — the relay (M=1, P=1)
# and M=12 at P=3, on the same real backlog — each rendered as an SVG flame graph of its execution samples (the npm
# package flamegraph, from `perf script`-format stacks that scripts/JfrStacks.java writes from the recording) and a
# Markdown table of the top frames by share (self and inclusive) and of the threads.
#
#   bash scripts/profile.sh [--records N] [--out DIR] [-- MORE-BENCH-ARGS...]
#
# Defaults: --records 10000000, --out target/profile. Output per run (relay, m12-p3): <name>.jfr, <name>.svg,
# <name>-top.md, and the bench's console <name>-bench.txt. JFR's `profile` settings sample Java threads every 10 ms
# (20 ms for native); the recording adds ~1-2 % CPU. Needs node/npm (the flame graph; apt_install'ed when missing).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

records=10000000
out="$REPO_ROOT/target/profile"
more=()
while [ $# -gt 0 ]; do
  case "$1" in
    --records) records="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --) shift; more=("$@"); break ;;
    *) die "unknown argument $1 (usage: bash scripts/profile.sh [--records N] [--out DIR] [-- MORE-BENCH-ARGS...])" ;;
  esac
done
mkdir -p "$out"
out="$(cd "$out" && pwd)"
find_java
command -v npx >/dev/null 2>&1 || apt_install nodejs npm

profile_run() { # name, bench args...
  local name="$1"; shift
  rm -f "$out/$name.jfr"
  log "== $name: bench with JFR on the writer ($records records)"
  bash scripts/bench.sh --write-mode async --records "$records" --ceiling-seconds 3s \
    "--writer-jvm-option=-XX:StartFlightRecording=filename=$out/$name.jfr,settings=profile,dumponexit=true" \
    "$@" "${more[@]}" | tee "$out/$name-bench.txt"
  [ -s "$out/$name.jfr" ] || die "no recording at $out/$name.jfr"
  "$JAVA_HOME/bin/java" scripts/JfrStacks.java "$out/$name.jfr" "$out/$name.perf" "$out/$name-top.md" 25
  npx --yes flamegraph@1.3.0 -t perf --titletext "tsdb-writer $name ($records records), JFR execution samples" \
    < "$out/$name.perf" > "$out/$name.svg"
  log "$name: $out/$name.svg, $out/$name-top.md"
}

profile_run relay --parallelism 1 --time-multiplier 1
profile_run m12-p3 --parallelism 3 --time-multiplier 12
