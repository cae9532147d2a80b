#!/usr/bin/env bash
# JMH benchmark of every input format's decoder (src/test/java/io/tsdbwriter/decode/DecoderBenchmark.java) on the same
# node_exporter scrapes: `decode` (decode only) and `relay` (decode -> amplify -> encode at M=N=1), single-threaded;
# the `samples` secondary result is samples/s per core. Short iterations by default (2 x 2 s warm-up, 3 x 2 s
# measured; an option given in the arguments replaces its default): extra arguments go to JMH (e.g.
# -p format=influx,json or -i 10).
# Result: target/jmh/decoders.json and target/jmh/decoders.txt.
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

# JMH refuses an option given twice: each default applies only when the arguments do not set that option
defaults=()
for d in "-wi 2" "-w 2" "-i 3" "-r 2" "-f 1"; do
  case " $* " in
    *" ${d%% *} "*) ;;
    *) read -ra kv <<<"$d" && defaults+=("${kv[@]}") ;;
  esac
done

log "== JMH: DecoderBenchmark (single thread, every format)"
# shellcheck disable=SC2046
"$JAVA_HOME/bin/java" $(quiet_jvm_flags) -cp "target/test-classes:target/classes:$(cat target/test.classpath)" \
  org.openjdk.jmh.Main DecoderBenchmark "${defaults[@]}" -rf json -rff "$OUT/decoders.json" "$@" | tee "$OUT/decoders.txt"

echo
echo "samples/s per core (decode | decode -> amplify -> encode at M=N=1):"
grep -E '^DecoderBenchmark\.(decode|relay):samples' "$OUT/decoders.txt" \
  | awk '{ split($1, b, "[.:]")
      # "score ± error ops/s", or "score ops/s" alone when one iteration leaves JMH no error to print
      if ($(NF-2) == "±") { s = $(NF-3); e = $(NF-1) } else { s = $(NF-1); e = 0 }
      printf "  %-8s %-16s %8.2fM +/- %.2fM\n", b[2], $2, s/1e6, e/1e6 }'
