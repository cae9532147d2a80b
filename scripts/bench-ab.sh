#!/usr/bin/env bash
# A/B of writer builds: one local stack (Kafka + VictoriaMetrics, as bench.sh starts it), one topic pre-loaded once,
# and `tsdb-writer bench` run by each given jar in turn for several rounds, so the builds are measured minutes apart on
# the same data. On a machine whose speed drifts (docs/benchmarks.md, "The machine") this is how a change is measured;
# two separate bench.sh runs are not comparable to better than ~15 %.
#
#   bash scripts/bench-ab.sh [--rounds N] OLD.jar NEW.jar [...] [-- BENCH-ARGS...]
#   bash scripts/bench-ab.sh [--rounds N] JAR --variant NAME 'BENCH-ARGS' [--variant ...] [-- BENCH-ARGS...]
#
# A variant is the last jar before it run with more bench arguments (split on blanks), e.g. a Kafka client property
# or JVM flag of the writers: --variant crcs-off '--writer-arg=--kafka-property=check.crcs=false'. The jar alone
# is measured too, as the baseline, unless --no-baseline.
#
# Default bench arguments: the relay at P=1 on 10,000,000 real records with -Xmx512m (`--parallelism 1
# --time-multiplier 1 --write-mode async --records 10000000 --ceiling-seconds 3s --cell-timeout 10m`); a flag among
# BENCH-ARGS replaces its default (e.g. `-- --time-multiplier 12 --parallelism 3`). Output: target/bench-ab/<jar>-<round>.{txt,csv} and one summary line per cell.
# Build an older jar with: git worktree add /tmp/old <commit> && (cd /tmp/old && mvn -q package -DskipTests).
# An AOT cache fits only the jar path it was trained on: train each jar's own (JAR=/tmp/ab/A.jar bash scripts/aot-cache.sh
# /tmp/ab/A.aot); a cache copied beside a copied jar is stale, and each such cell says so ("the writer's AOT cache was stale").
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

rounds=3
jars=()      # one entry per measured item: the jar
names=()     # its name in the output files
vargs=()     # its extra bench arguments (split on blanks)
extra=()
baseline=1
while [ $# -gt 0 ]; do
  case "$1" in
    --rounds) [ $# -ge 2 ] || die "--rounds needs a number"; rounds=$2; shift 2 ;;
    --no-baseline) baseline=0; shift ;;
    --variant)
      [ $# -ge 3 ] || die "--variant needs NAME and 'BENCH-ARGS'"
      [ "${#jars[@]}" -ge 1 ] || die "--variant needs a jar before it"
      [[ "$2" =~ ^[A-Za-z0-9._-]+$ ]] || die "--variant name '$2': letters, digits, . _ - only"
      jars+=("${jars[-1]}"); names+=("$2"); vargs+=("$3"); shift 3 ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,/^set -euo/{/^#/p}' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) [ -f "$1" ] || { log "error: no jar $1"; exit 2; }; jars+=("$(cd "$(dirname "$1")" && pwd)/$(basename "$1")")
      names+=("$(basename "$1" .jar)"); vargs+=(""); shift ;;
  esac
done
if [ "$baseline" = 0 ]; then # drop the jars that are only there for their variants
  keep_j=() keep_n=() keep_v=()
  for i in "${!jars[@]}"; do
    if [ -n "${vargs[i]}" ]; then keep_j+=("${jars[i]}"); keep_n+=("${names[i]}"); keep_v+=("${vargs[i]}"); fi
  done
  jars=("${keep_j[@]}") names=("${keep_n[@]}") vargs=("${keep_v[@]}")
fi
[ "${#jars[@]}" -ge 1 ] || { log "usage: bash scripts/bench-ab.sh [--rounds N] OLD.jar NEW.jar [...] [-- BENCH-ARGS...]"; exit 2; }
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { log "error: --rounds must be a positive number, not '$rounds'"; exit 2; }

DATA_DIR="${DATA_DIR:-$REPO_ROOT/examples/data}"
OUT="$REPO_ROOT/target/bench-ab"

stop_local_stack_on_exit

find_java
ensure_maven
ensure_victoria_metrics
[ -d "$DATA_DIR" ] || die "no directory $DATA_DIR (set DATA_DIR to a directory of node_exporter scrapes)"
log "== build the test classpath (for the local stack)"
build_test_classpath "$REPO_ROOT/target/bench-build.log"
rm -rf "$OUT"
mkdir -p "$OUT"
start_local_stack "$OUT"
log "Kafka $BOOTSTRAP_SERVERS, VictoriaMetrics $VM_URL"

# the first bench pre-loads this new topic; the others find it and use it as it is
args=(--bootstrap-servers "$BOOTSTRAP_SERVERS" --vm-url "$VM_URL" --topic "tsdb-writer-ab-$$"
  --writer-jvm-option=-Xmx512m)
# shellcheck disable=SC2054 # no commas to split here
DEFAULTS=(--source real --data-dir "$DATA_DIR" --parallelism 1 --time-multiplier 1 --write-mode async
  --records 10000000 --ceiling-seconds 3s --cell-timeout 10m)
for ((i = 0; i < ${#DEFAULTS[@]}; i += 2)); do
  if ! has_flag "${DEFAULTS[i]}" "${extra[@]}"; then args+=("${DEFAULTS[i]}" "${DEFAULTS[i + 1]}"); fi
done
for flag in $(quiet_jvm_flags); do args+=("--writer-jvm-option=$flag"); done
for ((r = 1; r <= rounds; r++)); do
  for i in "${!jars[@]}"; do
    jar=${jars[i]}
    name="${names[i]}-$r"
    read -r -a more <<<"${vargs[i]}"
    # shellcheck disable=SC2046 # word splitting of the JVM flags is intended
    "$JAVA_HOME/bin/java" $(quiet_jvm_flags) -Xmx2g -jar "$jar" bench "${args[@]}" "${extra[@]}" "${more[@]}" \
      --csv "$OUT/$name.csv" --work-dir "$OUT/work-$name" >"$OUT/$name.txt" 2>&1 </dev/null 3>&- \
      || die "bench of $jar failed (round $r); see $OUT/$name.txt"
    printf 'round %d %s: %s\n' "$r" "${names[i]}" \
      "$(grep 'bench: \[[0-9]*/[0-9]*\].*written' "$OUT/$name.txt" | sed 's/^.*bench: //' | tr '\n' ' ')"
  done
done
