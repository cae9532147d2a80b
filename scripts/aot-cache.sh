#!/usr/bin/env bash
# Builds a JDK 25 AOT cache (JEP 483/514/515) for target/tsdb-writer.jar from a training run on real input, so a
# writer pays class loading, linking and much of its warm-up once, here, instead of at every start:
#
#   bash scripts/aot-cache.sh [OUT.aot]          # default: target/tsdb-writer.aot (next to the jar)
#   java -XX:AOTCache=target/tsdb-writer.aot -jar target/tsdb-writer.jar run ...
#
# The training run: a local stack (Kafka KRaft + VictoriaMetrics on loopback, as bench.sh/demo.sh start it), the real
# node_exporter scrapes of DATA_DIR (default examples/data) produced into a topic, and the writer
# relaying them with --stop-at-end under -XX:AOTCacheOutput (the JVM writes the cache at exit). The cache fits only
# the jar it was built from, a JDK 25 of the same build, and compatible JVM flags (same GC family, same
# -XX:+UseCompactObjectHeaders setting): with anything else the JVM warns and starts without it, and the writer logs
# one line saying so. Rebuild it after every build of the jar. JDK 21 cannot use a cache and ignores none of this:
# do not pass -XX:AOTCache to a JDK 21 (the jar itself still runs on 21).
#
# Environment: DATA_DIR, AOT_JAVA_OPTS (JVM flags of the training run; use the flags you run with, e.g. the
# Dockerfile's JAVA_OPTS), JAR (default target/tsdb-writer.jar; built with mvn package when missing), MVN_OFFLINE=1.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

JAR="${JAR:-$REPO_ROOT/target/tsdb-writer.jar}"
OUT_AOT="${1:-${JAR%.jar}.aot}"
DATA_DIR="${DATA_DIR:-$REPO_ROOT/examples/data}"
WORK="$REPO_ROOT/target/aot-cache"

find_java
v=$(java_major "$JAVA_HOME/bin/java")
[ "$v" -ge 25 ] || die "an AOT cache needs JDK 25 or later ($JAVA_HOME is $v): set JAVA_HOME to a JDK 25"
ensure_maven
ensure_victoria_metrics
[ -d "$DATA_DIR" ] || die "no directory $DATA_DIR (set DATA_DIR to a directory of node_exporter scrapes)"
stop_local_stack_on_exit
log "== build: mvn package and the test classpath (for the local stack)"
build_test_classpath "$WORK-build.log"
[ -f "$JAR" ] || die "no jar $JAR"

rm -rf "$WORK"
mkdir -p "$WORK"
topic=aot-training
start_local_stack "$WORK" "$topic"
log "== produce the real scrapes of $DATA_DIR into $topic"
# shellcheck disable=SC2046 # word splitting of the JVM flags is intended
"$JAVA_HOME/bin/java" $(quiet_jvm_flags) -jar "$JAR" produce --bootstrap-servers "$BOOTSTRAP_SERVERS" --topic "$topic" \
  --instance node-0001 "$DATA_DIR"/*.prom 3>&- >"$WORK/produce.log" 2>&1 || { cat "$WORK/produce.log" >&2; die "produce failed"; }

log "== training run: the writer relays $topic with --stop-at-end, -XX:AOTCacheOutput=$OUT_AOT"
rm -f "$OUT_AOT"
mkdir -p "$(dirname "$OUT_AOT")"
# shellcheck disable=SC2046,SC2086 # word splitting of the JVM flags is intended
"$JAVA_HOME/bin/java" $(quiet_jvm_flags) ${AOT_JAVA_OPTS:-} -XX:AOTCacheOutput="$OUT_AOT" -jar "$JAR" run \
  --bootstrap-servers "$BOOTSTRAP_SERVERS" --topic "$topic" --group-id aot-training --vm-url "$VM_URL" \
  --stop-at-end --metrics-port -1 --summary-json "$WORK/summary.json" 3>&- >"$WORK/training.log" 2>&1 \
  || { tail -n 40 "$WORK/training.log" >&2; die "training run failed (log: $WORK/training.log)"; }
[ -s "$OUT_AOT" ] || { tail -n 40 "$WORK/training.log" >&2; die "the JVM wrote no AOT cache (log: $WORK/training.log)"; }
log "AOT cache: $OUT_AOT ($(du -h "$OUT_AOT" | cut -f1)); use it with: java -XX:AOTCache=$OUT_AOT -jar $JAR run ..."
