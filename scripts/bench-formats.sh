#!/usr/bin/env bash
# Per input format, the relay (M=N=1) writer CPU-s per million samples on a backlog of SAMPLES samples (default
# 5,000,000), and Telegraf's relay of the same influx records (inputs.kafka_consumer -> outputs.influxdb into the same
# VictoriaMetrics' /write) in the same run. One local stack (Kafka + VictoriaMetrics on loopback); every format gets its
# own pre-loaded topic (io.tsdbwriter.bench.FormatBacklog: one node_exporter scrape repeated a minute apart).
# Usage: scripts/bench-formats.sh [SAMPLES] [FORMAT...]      Output: target/bench-formats/results.txt
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

SAMPLES=${1:-5000000}
shift || true
FORMATS=("$@")
[ ${#FORMATS[@]} -gt 0 ] || FORMATS=(json influx promremotewrite prometheus jsonline graphite)

find_java
ensure_maven
ensure_victoria_metrics
ensure_telegraf
OUT="$REPO_ROOT/target/bench-formats"
rm -rf "$OUT"
mkdir -p "$OUT"
build_test_classpath "$OUT/build.log"
stop_local_stack_on_exit
start_local_stack "$OUT"
CP="target/test-classes:target/classes:$(cat target/test.classpath)"
RESULTS="$OUT/results.txt"
printf '%-16s %10s %12s %10s %14s\n' format samples cpu_seconds elapsed_s cpu_s_per_M | tee "$RESULTS"

for f in "${FORMATS[@]}"; do
  log "== $f: pre-loading $SAMPLES samples"
  # shellcheck disable=SC2046
  produced=$("$JAVA_HOME/bin/java" $(quiet_jvm_flags) -cp "$CP" io.tsdbwriter.bench.FormatBacklog "$BOOTSTRAP_SERVERS" "fmt-$f" "$f" "$SAMPLES" 2>"$OUT/feed-$f.log" | tail -n 1)
  log "== $f: relay of $produced samples"
  # shellcheck disable=SC2046
  "$JAVA_HOME/bin/java" $(quiet_jvm_flags) -jar target/tsdb-writer.jar run --bootstrap-servers "$BOOTSTRAP_SERVERS" \
    --topic "fmt-$f" --group-id "bench-$f" --vm-url "$VM_URL" --input-format "$f" --instance-label instance \
    --stop-at-end --metrics-port -1 --report-interval 60s --max-record-bytes 8MiB \
    --summary-json "$OUT/summary-$f.json" >"$OUT/writer-$f.log" 2>&1 || die "writer failed on $f: $OUT/writer-$f.log"
  python3 - "$f" "$OUT/summary-$f.json" <<'PY' | tee -a "$RESULTS"
import json, sys
s = json.load(open(sys.argv[2]))
print("%-16s %10d %12.2f %10.1f %14.3f" % (sys.argv[1], s["samples_written"], s["cpu_seconds"], s["elapsed_seconds"],
      s["cpu_seconds"] / s["samples_written"] * 1e6))
PY
done

if [ -n "${TSDB_WRITER_TELEGRAF_BINARY:-}" ] && [ -f "$OUT/summary-influx.json" ]; then
  total=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["samples_written"])' "$OUT/summary-influx.json")
  rows() { curl -s "$VM_URL/metrics" | sed -n 's/^vm_rows_inserted_total{type="influx"} //p' | head -n 1; }
  before=$(rows); before=${before:-0}
  cat >"$OUT/telegraf.conf" <<CONF
[agent]
  omit_hostname = true
  metric_batch_size = 10000
  metric_buffer_limit = 1000000
  flush_interval = "1s"
  quiet = true
[[inputs.kafka_consumer]]
  brokers = ["$BOOTSTRAP_SERVERS"]
  topics = ["fmt-influx"]
  consumer_group = "telegraf-bench"
  offset = "oldest"
  version = "3.0.0"
  max_undelivered_messages = 10000
  data_format = "influx"
[[outputs.influxdb]]
  urls = ["$VM_URL"]
  skip_database_creation = true
CONF
  log "== Telegraf relay of the influx topic ($total samples) into $VM_URL/write"
  start=$(date +%s.%N)
  "$TSDB_WRITER_TELEGRAF_BINARY" --config "$OUT/telegraf.conf" >"$OUT/telegraf.log" 2>&1 &
  tpid=$!
  deadline=$((SECONDS + 900))
  while :; do
    now=$(rows); now=${now:-0}
    [ $((now - before)) -ge "$total" ] && break
    kill -0 "$tpid" 2>/dev/null || die "telegraf exited: $OUT/telegraf.log"
    [ "$SECONDS" -ge "$deadline" ] && { kill "$tpid"; die "telegraf did not relay $total samples in 900 s"; }
    sleep 0.5
  done
  end=$(date +%s.%N)
  read -r ut st < <(awk '{print $14, $15}' "/proc/$tpid/stat")
  kill "$tpid"; wait "$tpid" 2>/dev/null || true
  python3 - "$ut" "$st" "$(getconf CLK_TCK)" "$total" "$start" "$end" <<'PY' | tee -a "$RESULTS"
import sys
ut, st, hz, total, start, end = (float(x) for x in sys.argv[1:])
cpu = (ut + st) / hz
print("%-16s %10d %12.2f %10.1f %14.3f" % ("telegraf-influx", total, cpu, end - start, cpu / total * 1e6))
PY
fi
log "results: $RESULTS"
