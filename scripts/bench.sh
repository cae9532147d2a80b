#!/usr/bin/env bash
# The efficiency table of issue 4 from one command: build; start a real Kafka broker + VictoriaMetrics on free
# loopback ports (LocalStack, as demo.sh does); run `tsdb-writer bench` against them, which pre-loads a topic with the
# real node_exporter scrapes replicated across instances, measures the ceiling (VictoriaMetrics ingesting
# pre-serialized bodies of the same shape at the same concurrency), runs every grid cell as its own writer process and
# prints the table. Writes target/bench/bench.csv, target/bench/bench.png and target/bench/bench.txt (the console
# output); each writer's log and summary are in target/bench/work/. The stack is stopped on exit, whatever happens.
#
# Defaults finish in about 10 minutes on 2 cores: --parallelism 1,3,6 --time-multiplier 1,6,12 --write-mode
# async,sync --records 1000000 --ceiling-seconds 10s. A flag given as an argument replaces its default; other
# arguments are passed on, e.g.:
#   bash scripts/bench.sh --parallelism 6 --time-multiplier 12 --write-mode async --records 10000000
#   bash scripts/bench.sh --parallelism 6 --time-multiplier 12 --write-mode async --input-rate 80% --live-duration 5m
# --with-prometheus (this script's own flag) also starts Prometheus (Debian, out-of-order window 30 d) as a second
# remote write receiver and runs each remote-write cell into VictoriaMetrics and into Prometheus, in one run:
#   bash scripts/bench.sh --with-prometheus --output import,remote-write --parallelism 3 --time-multiplier 1,12 \
#        --write-mode async --records 10000000
# --with-prometheus3 starts Prometheus 3 (built by ensure_prometheus_current; Remote-Write 1.0 and 2.0 accepted) as the
# only remote write receiver: Remote-Write 1.0 against 2.0 (`--output remote-write,remote-write-2`) in one run:
#   bash scripts/bench.sh --with-prometheus3 --output remote-write,remote-write-2 --parallelism 3 --time-multiplier 1,12 \
#        --write-mode async --records 5000000
# --fresh-prometheus3 (this script's own flag) builds Prometheus 3 as --with-prometheus3 does and passes it on as
# bench --prometheus-binary: every remote-write-2 cell and its ceiling get a new, empty Prometheus of their own (so none
# re-writes samples its receiver holds), while import and remote-write cells go to VictoriaMetrics, in one run:
#   bash scripts/bench.sh --fresh-prometheus3 --output import,remote-write,remote-write-2 --parallelism 1,3 \
#        --time-multiplier 1,12 --write-mode async --records 10000000
# --fresh-victoria-metrics (this script's own flag) passes VictoriaMetrics' binary on as bench --victoria-metrics-binary:
# every import and remote-write cell and its ceiling get a new, empty VictoriaMetrics of their own, so each writes
# only first writes, series creation included, as its ceiling does (the shared VictoriaMetrics still answers --vm-url):
#   bash scripts/bench.sh --fresh-victoria-metrics --fresh-prometheus3 --tsdb-cpus 0 --writer-cpus 1 \
#        --output import,remote-write,remote-write-2 --parallelism 1,3 --time-multiplier 1,12 --write-mode async
# --tsdb-cpus LIST --writer-cpus LIST (Linux, cpulists such as 0 and 1; passed on to bench) start VictoriaMetrics (and
# Prometheus) under taskset -c <tsdb-cpus> and Kafka under taskset -c <writer-cpus>, so that the TSDB sizes GOMAXPROCS
# and its concurrency limits for its own CPUs; bench then runs its writers and itself on the writer CPUs:
#   bash scripts/bench.sh --tsdb-cpus 0 --writer-cpus 1 --parallelism 3 --time-multiplier 12 --write-mode async
# Environment: DATA_DIR (default <repo>/examples/data), BENCH_JAVA_OPTS (JVM flags of the bench
# process), STACK_START_TIMEOUT seconds (default 240), MVN_OFFLINE=1 (build with mvn -o).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

DATA_DIR="${DATA_DIR:-$REPO_ROOT/examples/data}"
OUT="$REPO_ROOT/target/bench"
WITH_PROMETHEUS=0
FRESH_PROMETHEUS3=0
FRESH_VICTORIA_METRICS=0
PASS=()
for arg in "$@"; do
  case "$arg" in
    --with-prometheus) WITH_PROMETHEUS=1 ;;
    --with-prometheus3) WITH_PROMETHEUS=3 ;;
    --fresh-prometheus3) FRESH_PROMETHEUS3=1 ;;
    --fresh-victoria-metrics) FRESH_VICTORIA_METRICS=1 ;;
    *) PASS+=("$arg") ;;
  esac
done
set -- "${PASS[@]}"

stop_local_stack_on_exit

find_java
ensure_maven
ensure_victoria_metrics
if [ "$WITH_PROMETHEUS" = 1 ]; then ensure_prometheus; fi
if [ "$WITH_PROMETHEUS" = 3 ] || [ "$FRESH_PROMETHEUS3" = 1 ]; then ensure_prometheus_current; fi
[ -d "$DATA_DIR" ] || die "no directory $DATA_DIR (set DATA_DIR to a directory of node_exporter scrapes)"
if command -v fc-list >/dev/null 2>&1 && [ -z "$(fc-list 2>/dev/null | head -n 1)" ] && _can_root; then
  # the PNG chart needs one font; without one the bench skips the chart (a subshell: apt_install exits on failure)
  (apt_install fonts-dejavu-core fontconfig) || log "no font installed: the chart will be skipped"
fi

log "== build: mvn package and the test classpath (for the local stack)"
build_test_classpath "$REPO_ROOT/target/bench-build.log"

log "== start a real Kafka broker (KRaft) and VictoriaMetrics on free loopback ports"
rm -rf "$OUT"
mkdir -p "$OUT"
STACK_TSDB_CPUS=$(flag_value --tsdb-cpus "$@") STACK_WRITER_CPUS=$(flag_value --writer-cpus "$@") \
  STACK_PROMETHEUS=$WITH_PROMETHEUS start_local_stack "$OUT"
log "Kafka:           $BOOTSTRAP_SERVERS"
log "VictoriaMetrics: $VM_URL"
if [ "$WITH_PROMETHEUS" != 0 ]; then log "Prometheus:      $PROMETHEUS_URL"; fi
log "load: $(cut -d' ' -f1-3 /proc/loadavg) (other processes on this machine skew the figures; the table's CSV has each cell's load)"

# defaults, each dropped when the same flag is among the arguments
# shellcheck disable=SC2054 # the commas are inside values (1,3,6)
DEFAULTS=(--parallelism 1,3,6 --time-multiplier 1,6,12 --instance-multiplier 1 --write-mode async,sync
  --source real --data-dir "$DATA_DIR" --records 1000000 --ceiling-seconds 10s
  --csv "$OUT/bench.csv" --chart "$OUT/bench.png" --work-dir "$OUT/work")
ARGS=()
for ((i = 0; i < ${#DEFAULTS[@]}; i += 2)); do
  if ! has_flag "${DEFAULTS[i]}" "$@"; then ARGS+=("${DEFAULTS[i]}" "${DEFAULTS[i + 1]}"); fi
done
for flag in $(quiet_jvm_flags); do ARGS+=("--writer-jvm-option=$flag"); done
if [ "$WITH_PROMETHEUS" = 1 ] && ! has_flag --remote-write-url "$@"; then
  ARGS+=(--remote-write-url "$VM_URL/api/v1/write" --remote-write-url "$PROMETHEUS_URL/api/v1/write")
fi
if [ "$FRESH_PROMETHEUS3" = 1 ] && ! has_flag --prometheus-binary "$@"; then
  [ -x "$PROMETHEUS_CURRENT_BIN" ] || die "--fresh-prometheus3: no Prometheus 3 at $PROMETHEUS_CURRENT_BIN (install Go to build it)"
  ARGS+=(--prometheus-binary "$PROMETHEUS_CURRENT_BIN")
fi
if [ "$FRESH_VICTORIA_METRICS" = 1 ] && ! has_flag --victoria-metrics-binary "$@"; then
  ARGS+=(--victoria-metrics-binary "$VICTORIA_METRICS_BIN")
fi
if [ "$WITH_PROMETHEUS" = 3 ] && ! has_flag --remote-write-url "$@"; then
  ARGS+=(--remote-write-url "$PROMETHEUS_URL/api/v1/write")
fi

# shellcheck disable=SC2046,SC2086 # word splitting of the JVM flags is intended
"$JAVA_HOME/bin/java" $(quiet_jvm_flags) -Xmx2g ${BENCH_JAVA_OPTS:-} -jar "$REPO_ROOT/target/tsdb-writer.jar" bench \
  --bootstrap-servers "$BOOTSTRAP_SERVERS" --vm-url "$VM_URL" "${ARGS[@]}" "$@" 3>&- 2>&1 | tee "$OUT/bench.txt"
exit "${PIPESTATUS[0]}"
