#!/usr/bin/env bash
# A capacity soak on a local real stack (docs/capacity-testing.md "Capacity testing", docs/benchmarks-archive.md §9): build; start a real Kafka
# broker + VictoriaMetrics on free loopback ports; find the capacity of the soak's load model with `capacity` (unless
# CAPACITY_PER_MIN is given); produce the bundled real node_exporter scrapes into a topic; then replay that window
# rebased, looped for SOAK_DURATION at RATE_PCT % of the capacity, twice: without churn and with --churn-interval.
# Every minute: the writer's report (written / set rate), and VictoriaMetrics' CPU, RSS, new series and slow inserts
# from its /metrics. Writes target/soak/soak.csv (per minute, both runs), target/soak/soak.svg (written / set rate per
# minute), target/soak/summary-<run>.json and the logs. The stack is stopped on exit, whatever happens.
#
# Environment: SOAK_DURATION (default 30m), RATE_PCT (80), M (12), N (50), CHURN_INTERVAL (1h of sample time),
# REBASE_DAYS (1: the runs end this many days before now, whatever the rate), CAPACITY_PER_MIN (skip
# the search), MVN_OFFLINE=1 (build with mvn -o), STACK_START_TIMEOUT seconds.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

SOAK_DURATION="${SOAK_DURATION:-30m}"
RATE_PCT="${RATE_PCT:-80}"
M="${M:-12}"
N="${N:-50}"
CHURN_INTERVAL="${CHURN_INTERVAL:-1h}"
REBASE_DAYS="${REBASE_DAYS:-1}"
OUT="$REPO_ROOT/target/soak"

stop_local_stack_on_exit
find_java
ensure_maven
ensure_victoria_metrics

log "== build: mvn package and the test classpath (for the local stack)"
build_test_classpath "$REPO_ROOT/target/soak-build.log"
rm -rf "$OUT"
mkdir -p "$OUT"
start_local_stack "$OUT" soak-window:3
log "Kafka:           $BOOTSTRAP_SERVERS"
log "VictoriaMetrics: $VM_URL"
JAR="$REPO_ROOT/target/tsdb-writer.jar"
# shellcheck disable=SC2207
JVM=($(quiet_jvm_flags))

if [ -z "${CAPACITY_PER_MIN:-}" ]; then
  log "== capacity of M=$M N=$N (tsdb-writer capacity, its defaults)"
  "$JAVA_HOME/bin/java" "${JVM[@]}" -Xmx1g -jar "$JAR" capacity --bootstrap-servers "$BOOTSTRAP_SERVERS" --vm-url "$VM_URL" \
    --time-multiplier "$M" --instance-multiplier "$N" --work-dir "$OUT/capacity" --csv "$OUT/capacity.csv" \
    2>&1 | tee "$OUT/capacity.txt"
  CAPACITY_PER_MIN=$(sed -n 's/^capacity: \([0-9,]*\) samples\/min sustained.*/\1/p' "$OUT/capacity.txt" | tr -d ,)
  [ -n "$CAPACITY_PER_MIN" ] || die "capacity found no sustained rate (see $OUT/capacity.txt)"
fi
RATE=$((CAPACITY_PER_MIN * RATE_PCT / 100 / 60))
log "capacity $CAPACITY_PER_MIN samples/min: the soak writes $RATE samples/s ($RATE_PCT %)"

log "== produce the bundled real scrapes into topic soak-window"
"$JAVA_HOME/bin/java" "${JVM[@]}" -jar "$JAR" produce --bootstrap-servers "$BOOTSTRAP_SERVERS" --topic soak-window \
  >"$OUT/produce.log" 2>&1 || { cat "$OUT/produce.log" >&2; die "produce failed"; }

# Data time runs ahead of the clock (docs/capacity-testing.md "Mind the data time"): the bundled window is 507 points a minute, so its
# real-time rate is 507 x M x N / 60 samples/s; both runs start at REBASE and end (duration x rate / real-time rate)
# later, which must stay behind now + 1 day (--max-timestamp-ahead). Default: that span plus a day back.
case "$SOAK_DURATION" in
  *h) DURATION_S=$((${SOAK_DURATION%h} * 3600)) ;;
  *m) DURATION_S=$((${SOAK_DURATION%m} * 60)) ;;
  *s) DURATION_S=${SOAK_DURATION%s} ;;
  *) die "SOAK_DURATION takes s, m or h: $SOAK_DURATION" ;;
esac
AHEAD_S=$((DURATION_S * RATE * 60 / (507 * M * N)))
REBASE=$(date -u -d "-$((REBASE_DAYS * 86400 + AHEAD_S)) seconds" +%Y-%m-%dT%H:%M:00Z)
log "data time: $((AHEAD_S / 3600)) h per run at $((RATE * 60 / (507 * M * N)))x real time; both runs start at $REBASE"

# vm_sample NAME: the sum of a metric's samples on VictoriaMetrics' /metrics
vm_metrics() { curl -s "$VM_URL/metrics"; }
vm_value() { awk -v n="$1" '$1 == n || index($1, n "{") == 1 { s += $NF } END { printf "%.0f", s }' <<<"$2"; }

soak_run() {
  local name=$1
  shift
  log "== soak '$name': M=$M N=$N rate $RATE samples/s for $SOAK_DURATION, rebased to $REBASE, loop forever $*"
  "$JAVA_HOME/bin/java" "${JVM[@]}" -Xmx1g -jar "$JAR" run --bootstrap-servers "$BOOTSTRAP_SERVERS" --topic soak-window \
    --vm-url "$VM_URL" --time-multiplier "$M" --instance-multiplier "$N" --parallelism 3 --segment-size 5000 \
    --rebase-time "$REBASE" --loop forever --replay-duration "$SOAK_DURATION" --max-samples-per-second "$RATE" --report-interval 60s \
    --metrics-port -1 --summary-json "$OUT/summary-$name.json" "$@" >"$OUT/writer-$name.log" 2>&1 &
  local pid=$! minute=0 page
  while kill -0 "$pid" 2>/dev/null; do
    sleep 60 &
    wait $! || true
    kill -0 "$pid" 2>/dev/null || break
    minute=$((minute + 1))
    page=$(vm_metrics)
    printf '%s,%d,%s,%s,%s,%s,%s\n' "$name" "$minute" "$(vm_value process_cpu_seconds_total "$page")" \
      "$(vm_value process_resident_memory_bytes "$page")" "$(vm_value vm_new_timeseries_created_total "$page")" \
      "$(vm_value vm_slow_row_inserts_total "$page")" \
      "$(grep '\[report\]' "$OUT/writer-$name.log" | tail -n 1 | sed -n 's/.*samples\/s=\([0-9]*\).*/\1/p')" >>"$OUT/vm-$name.csv"
  done
  wait "$pid" || die "soak '$name' exited $? (see $OUT/writer-$name.log)"
}

soak_run steady
soak_run churn --churn-interval "$CHURN_INTERVAL"

python3 "$REPO_ROOT/scripts/soak_report.py" "$OUT" "$RATE" | tee "$OUT/soak.txt"
