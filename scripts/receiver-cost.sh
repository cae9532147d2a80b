#!/usr/bin/env bash
# The receiver's CPU per million samples of Remote-Write 1.0 against 2.0 (issue 43 item 4): bench's real feed
# (the node_exporter scrapes of --data-dir replicated across instances, M=1, N=1) encoded by the writer's encoders
# into requests of --batch points, sent by one thread to Prometheus 3 (ensure_prometheus_current; out-of-order window
# 30 d as bench's) on a free loopback port, reading its process_cpu_seconds_total before and after
# (src/test/java/io/tsdbwriter/bench/ReceiverCost.java).
#   --mode fresh   a new Prometheus per measurement, the versions alternated ABBA over the rounds (the default)
#   --mode repeat  the samples written twice into one Prometheus, in one version then the other, both orders per round
#   --profile-seconds S   a CPU profile of Prometheus per measurement (/debug/pprof/profile?seconds=S, from the first
#                  request on), summarised by `go tool pprof -top` next to it
# Usage: bash scripts/receiver-cost.sh [--records 1000000] [--batch 10000] [--rounds 4] [--mode fresh|repeat]
#        [--profile-seconds 0] [--data-dir examples/data] [--out target/receiver-cost]
# Result: OUT/MODE.tsv (one line per measurement), OUT/*.pprof and OUT/*.top.txt; a summary per version on stdout.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

RECORDS=1000000 BATCH=10000 ROUNDS=4 MODE=fresh PROFILE=0 DATA="$REPO_ROOT/examples/data" OUT="$REPO_ROOT/target/receiver-cost"
while [ $# -gt 0 ]; do
  case "$1" in
    --records) RECORDS=$2; shift ;;
    --batch) BATCH=$2; shift ;;
    --rounds) ROUNDS=$2; shift ;;
    --mode) MODE=$2; shift ;;
    --profile-seconds) PROFILE=$2; shift ;;
    --data-dir) DATA=$2; shift ;;
    --out) OUT=$2; shift ;;
    *) log "unknown argument: $1 (see the header of $0)"; exit 2 ;;
  esac
  shift
done
case "$MODE" in fresh|repeat) ;; *) log "--mode must be fresh or repeat, got $MODE"; exit 2 ;; esac

find_java
ensure_maven
ensure_prometheus_current
[ -x "$PROMETHEUS_CURRENT_BIN" ] || die "Prometheus 3 ($PROMETHEUS_CURRENT_BIN) is needed: install Go so ensure_prometheus_current can build it"
mkdir -p "$OUT"
log "== mvn package and the test classpath"
build_test_classpath "$OUT/build.log"

log "== ReceiverCost: $RECORDS points, batch $BATCH, $ROUNDS round(s), mode $MODE; load $(cut -d' ' -f1-3 /proc/loadavg)"
# shellcheck disable=SC2046
"$JAVA_HOME/bin/java" $(quiet_jvm_flags) -Xmx2g -cp "target/test-classes:target/classes:$(cat target/test.classpath)" \
  io.tsdbwriter.bench.ReceiverCost "$DATA" "$OUT" "$RECORDS" "$BATCH" "$ROUNDS" "$MODE" "$PROFILE" | tee "$OUT/$MODE.tsv"

if [ "$PROFILE" -gt 0 ] && command -v go >/dev/null 2>&1; then
  for f in "$OUT"/"$MODE"-*.pprof; do
    go tool pprof -top -nodecount=40 "$PROMETHEUS_CURRENT_BIN" "$f" >"${f%.pprof}.top.txt" 2>/dev/null || log "go tool pprof failed on $f"
  done
  log "profiles: $OUT/$MODE-*.pprof, summaries: $OUT/$MODE-*.top.txt"
fi

echo
echo "Prometheus CPU-s per million samples ($MODE; step = order of the measurement within its round):"
awk -F'\t' '$1 == "'"$MODE"'" {
    key = $4 (("'"$MODE"'" == "repeat") ? ($3 % 2 == 0 ? " first write" : " second write (same samples)") : "")
    n[key]++; s[key] += $8; if (!(key in lo) || $8 < lo[key]) lo[key] = $8; if ($8 > hi[key]) hi[key] = $8 }
  END { for (k in n) printf "  %-36s n=%d mean %.2f (min %.2f, max %.2f)\n", k, n[k], s[k] / n[k], lo[k], hi[k] }' "$OUT/$MODE.tsv" | sort
