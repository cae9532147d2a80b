#!/usr/bin/env bash
# The Dockerfile's AOT training run (stage "aot"): a single-node Kafka (KRaft) and VictoriaMetrics on loopback inside
# the build, the real node_exporter scrapes of examples/data produced into a topic, and the writer relaying them with
# --stop-at-end under -XX:AOTCacheOutput, with the image's own JAVA_OPTS (a cache fits only compatible JVM flags).
# scripts/aot-cache.sh does the same for java -jar users, with the project's test stack.
#
#   KAFKA_HOME=/opt/kafka VM_BIN=/usr/local/bin/victoria-metrics JAR=/app/tsdb-writer.jar DATA_DIR=/aot/data \
#     bash aot-train-image.sh /app/tsdb-writer.aot
set -euo pipefail
out=$1
: "${KAFKA_HOME:?}" "${VM_BIN:?}" "${JAR:?}" "${DATA_DIR:?}"
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

cat >"$work/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:19093
listeners=PLAINTEXT://127.0.0.1:19092,CONTROLLER://127.0.0.1:19093
advertised.listeners=PLAINTEXT://127.0.0.1:19092
controller.listener.names=CONTROLLER
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$work/kafka
num.partitions=1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
EOF
export KAFKA_HEAP_OPTS="-Xmx256m" LOG_DIR="$work/kafka-logs"
"$KAFKA_HOME/bin/kafka-storage.sh" format -t "$("$KAFKA_HOME/bin/kafka-storage.sh" random-uuid)" -c "$work/server.properties" >/dev/null
"$KAFKA_HOME/bin/kafka-server-start.sh" "$work/server.properties" >"$work/kafka.out" 2>&1 &
pids+=($!)
"$VM_BIN" -storageDataPath="$work/vm" -httpListenAddr=127.0.0.1:18428 -loggerLevel=ERROR >"$work/vm.out" 2>&1 &
pids+=($!)

for _ in $(seq 1 120); do
  "$KAFKA_HOME/bin/kafka-topics.sh" --bootstrap-server 127.0.0.1:19092 --create --if-not-exists --topic aot-training \
    --partitions 1 >/dev/null 2>&1 && break
  sleep 1
done
# shellcheck disable=SC2086 # JAVA_OPTS is a list of flags
java $JAVA_OPTS -jar "$JAR" produce --bootstrap-servers 127.0.0.1:19092 --topic aot-training --instance node-0001 \
  "$DATA_DIR"/*.prom
# shellcheck disable=SC2086
java $JAVA_OPTS -XX:AOTCacheOutput="$out" -Xlog:aot=error -jar "$JAR" run --bootstrap-servers 127.0.0.1:19092 \
  --topic aot-training --group-id aot-training --vm-url http://127.0.0.1:18428 --stop-at-end --metrics-port -1
test -s "$out"
echo "AOT cache $out: $(du -h "$out" | cut -f1)"
