#!/usr/bin/env bash
# THE main-job command: real node_exporter data -> real Kafka -> tsdb-writer (M=6 in time, N=10 instances,
# 3 consumers per partition) -> real VictoriaMetrics, then an exact read-back check.
#
# Steps: build; start a real Kafka broker + VictoriaMetrics on free loopback ports (LocalStack, the same code the
# integration tests use) with the 3-partition topic node-metrics; produce the *.prom files; run the writer to the
# end of the topic; verify that VictoriaMetrics holds exactly the expected samples. The stack is stopped on exit,
# whatever happens. Exit code: 0 when every step succeeded, else the failing step's exit code.
#
# Environment: DATA_DIR (default: <repo>/examples/data), WRITER_JAVA_OPTS (extra JVM flags for the
# writer, word-split), STACK_START_TIMEOUT seconds (default 240).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

DATA_DIR="${DATA_DIR:-$REPO_ROOT/examples/data}"
if [ -d "$DATA_DIR" ]; then
  DATA_DIR="$(cd "$DATA_DIR" && pwd)"
fi
TOPIC=node-metrics
PARTITIONS=3
DEMO_DIR="$REPO_ROOT/target/demo"
STACK_DIR="$DEMO_DIR/stack"

STEP=0
STEPS=6
header() {
  STEP=$((STEP + 1))
  printf '\n==== [%d/%d] %s\n' "$STEP" "$STEPS" "$*"
}

# run_step "title" cmd args...: prints the header and the command, runs it (without the stack's fd 3), and stops the
# demo with the command's exit code when it fails.
run_step() {
  local title=$1 rc=0
  shift
  header "$title"
  # echo the command with the input files folded into one glob
  local arg shown=() files=0
  for arg in "$@"; do
    if [[ "$arg" == "$DATA_DIR"/*.prom ]]; then
      files=$((files + 1))
      [ "$files" -eq 1 ] && shown+=("$DATA_DIR/*.prom")
    else
      shown+=("$arg")
    fi
  done
  printf '+ %s\n' "${shown[*]}"
  "$@" 3>&- || rc=$?
  if [ "$rc" -ne 0 ]; then
    log "==== FAILED: $title (exit $rc)"
    exit "$rc"
  fi
}

stop_local_stack_on_exit

# ---- prerequisites -------------------------------------------------------------------------------------------------
find_java
ensure_maven
ensure_victoria_metrics
shopt -s nullglob
FILES=("$DATA_DIR"/*.prom)
shopt -u nullglob
if [ "${#FILES[@]}" -eq 0 ]; then
  die "no *.prom files in $DATA_DIR (set DATA_DIR to a directory of node_exporter scrapes)"
fi
JAVA="$JAVA_HOME/bin/java"
# shellcheck disable=SC2206 # word splitting of WRITER_JAVA_OPTS is intended
WRITER=("$JAVA" ${WRITER_JAVA_OPTS:-} -jar "$REPO_ROOT/target/tsdb-writer.jar")

# ---- 1. build ------------------------------------------------------------------------------------------------------
header "build: mvn package (jar + test fixtures) and the test classpath"
build_test_classpath "$REPO_ROOT/target/demo-build.log"

# ---- 2. real stack -------------------------------------------------------------------------------------------------
header "start a real Kafka broker (KRaft) and VictoriaMetrics on free loopback ports; topic $TOPIC ($PARTITIONS partitions)"
rm -rf "$DEMO_DIR"
mkdir -p "$DEMO_DIR"
start_local_stack "$DEMO_DIR" "$TOPIC:$PARTITIONS"
B=$BOOTSTRAP_SERVERS
VM=$VM_URL
printf 'Kafka:           %s   (log: %s)\n' "$B" "$STACK_DIR/kafka/broker.log"
printf 'VictoriaMetrics: %s   (log: %s)\n' "$VM" "$STACK_DIR/victoria-metrics.log"
printf 'input:           %d files in %s\n' "${#FILES[@]}" "$DATA_DIR"

# ---- 3..5. produce, run, verify ------------------------------------------------------------------------------------
# produce moves the scrapes' timestamps to the present (the newest within the minute before NOW_MS), so the demo
# works on any date; verify is given the same --now and expects the same timestamps.
NOW_MS=$(( $(date +%s) * 1000 ))
run_step "produce the node_exporter scrapes to $TOPIC" \
  "${WRITER[@]}" produce --bootstrap-servers "$B" --topic "$TOPIC" --instance node-0001 --product-key node --now "$NOW_MS" "${FILES[@]}"

run_step "run the writer: M=6 (10 s samples), N=10 instances, 3 consumers per partition, until the end of the topic" \
  "${WRITER[@]}" run --bootstrap-servers "$B" --topic "$TOPIC" --vm-url "$VM" \
  --time-multiplier 6 --instance-multiplier 10 --parallelism 3 --stop-at-end --report-interval 5s \
  --summary-json "$DEMO_DIR/summary.json"

run_step "verify: every expected sample is in VictoriaMetrics, and nothing else" \
  "${WRITER[@]}" verify --wait 30s --vm-url "$VM" --time-multiplier 6 --instance-multiplier 10 --instance node-0001 \
  --product-key node --now "$NOW_MS" "${FILES[@]}"

header "done"
if [ -f "$DEMO_DIR/summary.json" ]; then
  printf 'summary: %s\n' "$DEMO_DIR/summary.json"
  cat "$DEMO_DIR/summary.json"
  echo
fi
echo "DEMO OK"
