#!/usr/bin/env bash
# JMH benchmark of the hot path decode -> amplify -> encode (src/test/java/io/tsdbwriter/pipeline/HotPathBenchmark.java):
# builds the test classes (the JMH annotation processor generates the harness), runs the benchmark single-threaded
# and prints samples/s per core. The benchmark counts one operation per sample (M=12, N=1), so its single-thread
# throughput IS samples/s per core. It runs once per encoder (-p output=import,remote-write by default: the JSON-lines
# import encoder and the Prometheus remote write encoder). Extra arguments go to JMH (e.g. -f 2 -wi 5 -i 10,
# -p output=remote-write, or -prof gc).
# Result: target/jmh/hotpath.json (JMH JSON) and target/jmh/hotpath.txt (its console output).
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

find_java
ensure_maven

OUT="$REPO_ROOT/target/jmh"
mkdir -p "$OUT"
log "== mvn test-compile (with the JMH annotation processor) and the test classpath"
build_test_classpath "$OUT/build.log"

log "== JMH: HotPathBenchmark (single thread; M=12, N=1)"
# shellcheck disable=SC2046
"$JAVA_HOME/bin/java" $(quiet_jvm_flags) -cp "target/test-classes:target/classes:$(cat target/test.classpath)" \
  org.openjdk.jmh.Main HotPathBenchmark -rf json -rff "$OUT/hotpath.json" "$@" | tee "$OUT/hotpath.txt"

score=$(sed -n 's/^ *"score" : \([0-9.E+-]*\),*$/\1/p' "$OUT/hotpath.json" | head -n 1)
error=$(sed -n 's/^ *"scoreError" : \([0-9.E+-]*\),*$/\1/p' "$OUT/hotpath.json" | head -n 1)
[ -n "$score" ] || die "no score in $OUT/hotpath.json"
m=$(sed -n 's/^ *"timeMultiplier" : "\([0-9]*\)",*$/\1/p' "$OUT/hotpath.json" | head -n 1)
nm=$(sed -n 's/^ *"instanceMultiplier" : "\([0-9]*\)",*$/\1/p' "$OUT/hotpath.json" | head -n 1)
echo
# every benchmark of the run, one line each (output = the encoder). The benchmark counts RECORDS x 12 operations per
# invocation (M=12, N=1); for other M or N the samples/s are scaled here: score x M x N / 12.
outputs=$(sed -n 's/^ *"output" : "\([a-z-]*\)",*$/\1/p' "$OUT/hotpath.json")
ms=$(sed -n 's/^ *"timeMultiplier" : "\([0-9]*\)",*$/\1/p' "$OUT/hotpath.json")
ns=$(sed -n 's/^ *"instanceMultiplier" : "\([0-9]*\)",*$/\1/p' "$OUT/hotpath.json")
scores=$(sed -n 's/^ *"score" : \([0-9.E+-]*\),*$/\1/p' "$OUT/hotpath.json")
paste <(printf '%s\n' "$outputs") <(printf '%s\n' "$ms") <(printf '%s\n' "$ns") <(printf '%s\n' "$scores") |
  while IFS=$'\t' read -r o mm nn sc; do
    if [ -n "$sc" ]; then
      awk -v o="${o:-import}" -v m="${mm:-12}" -v n="${nn:-1}" -v s="$sc" \
        'BEGIN { printf "encoder %-13s M=%-3s N=%-3s %.2fM samples/s per core\n", o, m, n, s * m * n / 12 / 1e6 }'
    fi
  done
# the first benchmark of the run (with -p timeMultiplier=1,12 JMH runs both; see the table above for the others)
awk -v s="$score" -v e="$error" -v n="$(nproc)" -v m="${m:-12}" -v nm="${nm:-1}" 'BEGIN {
  k = m * nm / 12 # the benchmark counts 12 operations per point whatever M and N are: scaled as in the table above
  printf "hot path (decode -> amplify -> encode, M=%s, N=%s): %.2fM samples/s per core (+/- %.2fM, 99.9%% CI); %d cores on this machine\n", m, nm, s*k/1e6, e*k/1e6, n
  if (m == 12 && nm == 1) printf "target >= 5M samples/s per core at M=12: %s\n", (s >= 5e6 ? "met" : "NOT met")
}'
