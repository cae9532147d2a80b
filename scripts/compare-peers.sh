#!/usr/bin/env bash
# The peer users pick first, side by side under faults: the OpenTelemetry Collector (kafkareceiver ->
# prometheusremotewriteexporter, the at-least-once configuration of
# src/main/resources/otelcol/kafka-to-remote-write.yaml; built by ensure_otelcol) and tsdb-writer
# (`run --input-format otlp --output remote-write`, remote write 1.0) on one topic of OTLP records, one per scrape
# (an instance's gauge points of one second, keyed by instance; the records of `produce --record-format otlp`), fed
# while they read it, each with its own consumer group and its own fresh receiver, both at once (src/test/java/io/tsdbwriter/bench/PeerKill.java; PeerKillIT runs case a small):
#   a) the peer killed -9 once its receiver accepted a third of the samples, started again 2 s later on its group,
#      into VictoriaMetrics without deduplication (-dedup.minScrapeInterval=0: its raw export shows every copy);
#   b) the receiver (VictoriaMetrics) killed -9 at the same point under each peer, started again 3 s later on its data;
#   c) order: no fault, into Prometheus 3 without an out-of-order window (its default), the Collector at its components'
#      defaults (remote_write_queue on, 5 consumers), tsdb-writer at its defaults; its
#      prometheus_tsdb_out_of_order_samples_total counts what each got refused.
# Read back: samples stored (distinct), missing (produced - stored), duplicated (copies in VictoriaMetrics' raw
# export), refused as out of order (Prometheus), the exit codes and what each process reported about itself.
# Builds the jar, starts Kafka on a free loopback port (LocalStack; its VictoriaMetrics is not used: every run gets a
# receiver of its own, the two peers write the same series), prints each phase, stops the stack on exit.
# Usage: bash scripts/compare-peers.sh [--points 1000000] [--points-per-second 40000] [--cases a,b,c] [--partitions 6]
#   --points N   points per case: 10,000 series × up to 3000 points, one second apart (more series above 30 M),
#                250 series an instance (one record per instance and second)
#   --points-per-second R  points per second the topic is fed at while both peers read it (a live stream; a new
#                topic per case; records paced by the points they hold)
# Result: target/compare-peers/peers.txt and peers.md (the table), each run's logs under target/compare-peers/work/.
# Environment: PEERS_JAVA_OPTS (JVM flags of the comparison), STACK_START_TIMEOUT seconds (default 240).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

POINTS=1000000 RATE=40000 CASES=a,b,c PARTITIONS=6 OUT="$REPO_ROOT/target/compare-peers"
while [ $# -gt 0 ]; do
  case "$1" in
    --points) POINTS=$2; shift ;;
    --points-per-second) RATE=$2; shift ;;
    --cases) CASES=$2; shift ;;
    --partitions) PARTITIONS=$2; shift ;;
    *) log "unknown argument: $1 (see the header of $0)"; exit 2 ;;
  esac
  shift
done

stop_local_stack_on_exit

find_java
ensure_maven
ensure_victoria_metrics
ensure_otelcol
[ -x "$OTELCOL_BIN" ] || die "the OpenTelemetry Collector ($OTELCOL_BIN) is needed: install Go so ensure_otelcol can build it"
case ",$CASES," in
  *,c,*)
    ensure_prometheus_current
    [ -x "$PROMETHEUS_CURRENT_BIN" ] \
      || die "Prometheus 3 ($PROMETHEUS_CURRENT_BIN) is needed for case c: install Go so ensure_prometheus_current can build it"
    ;;
esac

log "== build: mvn package and the test classpath"
build_test_classpath "$REPO_ROOT/target/compare-peers-build.log"

log "== start a real Kafka broker (KRaft) on a free loopback port"
rm -rf "$OUT"
mkdir -p "$OUT"
start_local_stack "$OUT"
log "Kafka: $BOOTSTRAP_SERVERS"
log "Collector: $OTELCOL_BIN ($(cat "$OTELCOL_BIN.built" 2>/dev/null || echo 'version unknown'))"
log "load: $(cut -d' ' -f1-3 /proc/loadavg) (other processes on this machine slow both peers alike)"

# shellcheck disable=SC2046,SC2086 # word splitting of the JVM flags is intended
"$JAVA_HOME/bin/java" $(quiet_jvm_flags) -Xmx1g ${PEERS_JAVA_OPTS:-} \
  -cp "target/test-classes:target/classes:$(cat target/test.classpath)" \
  io.tsdbwriter.bench.PeerKill "$BOOTSTRAP_SERVERS" "$OUT" "$POINTS" "$CASES" "$PARTITIONS" "$RATE" 3>&- 2>&1 | tee "$OUT/console.txt"
exit "${PIPESTATUS[0]}"
