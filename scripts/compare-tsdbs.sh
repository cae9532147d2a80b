#!/usr/bin/env bash
# `tsdb-writer capacity --target …` against three receivers on one machine, from one command (issue 55): build; start
# a real Kafka broker, VictoriaMetrics (import API), Prometheus 3 (remote write 2.0, out-of-order window 30 d) and
# Thanos receive (remote write 1.0, at its defaults: no out-of-order window) on free loopback ports (LocalStack); run
# the same search — the same real node_exporter scrapes, amplification, steps — against each one after another, and
# write the targets side by side: target/compare/capacity-report.md and .html (a table and a chart per figure), each
# target's own report in target/compare/NAME/, the console output in target/compare/capacity.txt.
# The stack is stopped on exit, whatever happens. Prometheus 3 and Thanos are built with Go the first time
# (ensure_prometheus_current, ensure_thanos: several minutes).
#
# Defaults: 20 s steps (5 s warm-up), 2 rising steps, the first at 100 % of the probed throughput: about 6 minutes on
# 2 cores. A flag given as an argument replaces its default; other arguments are passed on, e.g.:
#   bash scripts/compare-tsdbs.sh --step-duration 60s --warm-up 15s --max-steps 5
#   bash scripts/compare-tsdbs.sh --time-multiplier 12 --data-dir /path/to/your/scrapes
# Environment: DATA_DIR (default <repo>/examples/data), CAPACITY_JAVA_OPTS (JVM flags of the search process),
# STACK_START_TIMEOUT seconds (default 240).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

DATA_DIR="${DATA_DIR:-$REPO_ROOT/examples/data}"
OUT="$REPO_ROOT/target/compare"

stop_local_stack_on_exit

find_java
ensure_maven
ensure_victoria_metrics
ensure_prometheus_current
ensure_thanos
[ -x "$PROMETHEUS_CURRENT_BIN" ] || die "Prometheus 3 ($PROMETHEUS_CURRENT_BIN) is needed: install Go so ensure_prometheus_current can build it"
[ -x "$THANOS_BIN" ] || die "Thanos ($THANOS_BIN) is needed: install Go so ensure_thanos can build it"
[ -d "$DATA_DIR" ] || die "no directory $DATA_DIR (set DATA_DIR to a directory of node_exporter scrapes)"

log "== build: mvn package and the test classpath (for the local stack)"
build_test_classpath "$REPO_ROOT/target/compare-build.log"

log "== start a real Kafka broker (KRaft), VictoriaMetrics, Prometheus 3 and Thanos receive on free loopback ports"
rm -rf "$OUT"
mkdir -p "$OUT"
STACK_PROMETHEUS=3 STACK_THANOS=1 start_local_stack "$OUT"
log "Kafka:           $BOOTSTRAP_SERVERS"
log "VictoriaMetrics: $VM_URL"
log "Prometheus 3:    $PROMETHEUS_URL"
log "Thanos receive:  $THANOS_REMOTE_WRITE_URL (/metrics on $THANOS_URL)"
log "load: $(cut -d' ' -f1-3 /proc/loadavg) (other processes on this machine skew the figures)"

# shellcheck disable=SC2054
DEFAULTS=(--data-dir "$DATA_DIR" --report "$OUT" --work-dir "$OUT/work" --step-duration 20s --warm-up 5s --max-steps 2)
ARGS=()
for ((i = 0; i < ${#DEFAULTS[@]}; i += 2)); do
  if ! has_flag "${DEFAULTS[i]}" "$@"; then ARGS+=("${DEFAULTS[i]}" "${DEFAULTS[i + 1]}"); fi
done
for flag in $(quiet_jvm_flags); do ARGS+=("--writer-jvm-option=$flag"); done

# shellcheck disable=SC2046,SC2086 # word splitting of the JVM flags is intended
"$JAVA_HOME/bin/java" $(quiet_jvm_flags) -Xmx1g ${CAPACITY_JAVA_OPTS:-} -jar "$REPO_ROOT/target/tsdb-writer.jar" capacity \
  --bootstrap-servers "$BOOTSTRAP_SERVERS" \
  --target "vm=$VM_URL" \
  --target "prom=$PROMETHEUS_URL/api/v1/write,output=remote-write,remote-write-version=2,query-url=$PROMETHEUS_URL" \
  --target "thanos=$THANOS_REMOTE_WRITE_URL,output=remote-write,remote-write-version=1,metrics-url=$THANOS_URL/metrics" \
  "${ARGS[@]}" "$@" 3>&- 2>&1 | tee "$OUT/capacity.txt"
exit "${PIPESTATUS[0]}"
