#!/usr/bin/env bash
# `tsdb-writer capacity` on a local real stack, from one command: build; start a real Kafka broker + VictoriaMetrics on
# free loopback ports (LocalStack, as bench.sh does); run the step-load search against them, which pre-loads a probe
# backlog with the real node_exporter scrapes, then feeds one fresh topic per step at a rising rate while a writer
# process runs, measures each step and names what binds. Prints the capacity (maximum sustainable samples/min), the
# verdict and the table of steps; writes target/capacity/capacity.csv, target/capacity/capacity.png, the report page
# target/capacity/capacity-report.html and .md, and target/capacity/capacity.txt (the console output); each step's writer log and summary are in target/capacity/work/.
# The stack is stopped on exit, whatever happens.
#
# Defaults (60 s steps × factor 1.25 from the probed throughput, one refinement, --time-budget 8m for the steps) finish
# in about 10 minutes on 2 cores. A flag given as an argument replaces its default; other arguments are passed on, e.g.:
#   bash scripts/capacity.sh --step-duration 30s --warm-up 10s
#   bash scripts/capacity.sh --max-concurrent-writes 200 --time-multiplier 12
#   bash scripts/capacity.sh --vary time-multiplier --start-input-rate 20000
#   bash scripts/capacity.sh --output remote-write    # into the local VictoriaMetrics' /api/v1/write (ordered)
# --tsdb-cpus LIST --writer-cpus LIST (Linux, cpulists such as 0 and 1; passed on to capacity) start VictoriaMetrics
# under taskset -c <tsdb-cpus> and Kafka under taskset -c <writer-cpus>, so that the TSDB sizes GOMAXPROCS and its
# concurrency limits for its own CPUs; capacity then runs its writers and itself on the writer CPUs:
#   bash scripts/capacity.sh --tsdb-cpus 0 --writer-cpus 1
# VictoriaMetrics flags for the local target: VM_EXTRA_FLAGS (e.g. "-maxConcurrentInserts=4").
# Environment: DATA_DIR (default <repo>/examples/data), CAPACITY_JAVA_OPTS (JVM flags of the search
# process), STACK_START_TIMEOUT seconds (default 240), MVN_OFFLINE=1 (build with mvn -o).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

DATA_DIR="${DATA_DIR:-$REPO_ROOT/examples/data}"
OUT="$REPO_ROOT/target/capacity"

stop_local_stack_on_exit

find_java
ensure_maven
ensure_victoria_metrics
[ -d "$DATA_DIR" ] || die "no directory $DATA_DIR (set DATA_DIR to a directory of node_exporter scrapes)"
if command -v fc-list >/dev/null 2>&1 && [ -z "$(fc-list 2>/dev/null | head -n 1)" ] && _can_root; then
  (apt_install fonts-dejavu-core fontconfig) || log "no font installed: the chart will be skipped"
fi

log "== build: mvn package and the test classpath (for the local stack)"
build_test_classpath "$REPO_ROOT/target/capacity-build.log"

log "== start a real Kafka broker (KRaft) and VictoriaMetrics on free loopback ports"
rm -rf "$OUT"
mkdir -p "$OUT"
STACK_TSDB_CPUS=$(flag_value --tsdb-cpus "$@") STACK_WRITER_CPUS=$(flag_value --writer-cpus "$@") start_local_stack "$OUT"
log "Kafka:           $BOOTSTRAP_SERVERS"
log "VictoriaMetrics: $VM_URL"
log "load: $(cut -d' ' -f1-3 /proc/loadavg) (other processes on this machine skew the figures; the CSV has each step's load)"

# shellcheck disable=SC2054
DEFAULTS=(--data-dir "$DATA_DIR" --csv "$OUT/capacity.csv" --chart "$OUT/capacity.png" --report "$OUT" --work-dir "$OUT/work")
ARGS=()
for ((i = 0; i < ${#DEFAULTS[@]}; i += 2)); do
  if ! has_flag "${DEFAULTS[i]}" "$@"; then ARGS+=("${DEFAULTS[i]}" "${DEFAULTS[i + 1]}"); fi
done
for flag in $(quiet_jvm_flags); do ARGS+=("--writer-jvm-option=$flag"); done
# --output remote-write without --remote-write-url: the local VictoriaMetrics' own remote write endpoint
if [ "$(flag_value --output "$@")" = remote-write ] && ! has_flag --remote-write-url "$@"; then
  ARGS+=(--remote-write-url "$VM_URL/api/v1/write")
fi

# shellcheck disable=SC2046,SC2086 # word splitting of the JVM flags is intended
"$JAVA_HOME/bin/java" $(quiet_jvm_flags) -Xmx1g ${CAPACITY_JAVA_OPTS:-} -jar "$REPO_ROOT/target/tsdb-writer.jar" capacity \
  --bootstrap-servers "$BOOTSTRAP_SERVERS" --vm-url "$VM_URL" "${ARGS[@]}" "$@" 3>&- 2>&1 | tee "$OUT/capacity.txt"
exit "${PIPESTATUS[0]}"
