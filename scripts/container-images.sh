#!/usr/bin/env bash
# Builds the local images of the container path of the integration fixture (src/test/java/io/tsdbwriter/it/support/
# ContainerComponents.java), with no image registry: each image is a root file system made of this machine's own
# binaries, fed to `docker import`. It starts nothing.
#
#   local/tsdb-writer-victoria-metrics:1.79.5    /usr/bin/victoria-metrics (the Debian package, ensure_victoria_metrics)
#   local/tsdb-writer-victoria-metrics:v1.150.0  ~/.cache/tsdb-writer/bin/victoria-metrics, when built
#                                                (ensure_victoria_metrics_current); tags: pom.xml's versions
#   local/tsdb-writer-kafka:4.3.1                the JDK find_java picks and the jars of the test classpath: the JVM and
#                                                jars KafkaBroker's child process runs (tag: pom.xml kafka.version)
#
# Each binary comes with the shared libraries ldd names for it (the JDK: for every ELF file in it; bash and sleep for
# the Kafka image's entry script). The Kafka image follows the apache/kafka image's contract, which Testcontainers'
# KafkaContainer relies on: KAFKA_* environment variables become server.properties keys (KAFKA_LOG_DIRS -> log.dirs,
# `__` -> `_`, `___` -> `-`), CLUSTER_ID formats the storage, /etc/kafka/docker/run starts the broker, and `sh` and
# `sleep` exist.
#
# An image whose label tsdbwriter.source matches its sources (binary checksum; JDK release, jar names, sizes and
# times, this script) is kept; --force rebuilds. KAFKA_CLASSPATH (':'-separated, as the test JVM has it; entries under
# target/ and directories are left out) names the jars; without it, target/test.classpath is built
# (build_test_classpath: mvn package -DskipTests once).
#
# Usage: scripts/container-images.sh [--force]
# Needs: a Docker engine that answers (`docker info`). Exit 1 when an image cannot be built.
set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO_ROOT"

FORCE=0
for arg in "$@"; do
  case "$arg" in
    --force) FORCE=1 ;;
    -h|--help) sed -n '2,25p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown argument $arg (usage: scripts/container-images.sh [--force])" ;;
  esac
done

command -v docker >/dev/null 2>&1 || die "docker not found"
docker info >/dev/null 2>&1 || die "no Docker engine answers (docker info failed): start it first"

STAGE=$(mktemp -d "${TMPDIR:-/tmp}/tsdb-writer-images.XXXXXX")
trap 'rm -rf "$STAGE"' EXIT

# add_libs ROOT FILE...: copies the shared libraries ldd names for each file (and the dynamic loader) into ROOT at
# their paths (symlinks resolved). Libraries ldd cannot find are skipped: the JDK's desktop libraries (libX11,
# libasound, ...) are never loaded by a headless broker. So are those under $JAVA_HOME (the image has the JDK).
add_libs() {
  local root=$1 file lib jdk
  jdk=$(readlink -f "$JAVA_HOME")
  shift
  for file in "$@"; do
    while read -r lib; do
      case "$lib" in "$jdk"/*|"$JAVA_HOME"/*) continue ;; esac
      [ -e "$root$lib" ] || cp --parents -L "$lib" "$root/"
    done < <(ldd "$file" 2>/dev/null | grep -o '/[^ ]*' || true)
  done
}

# up_to_date TAG SOURCE_ID: true (and says so) when TAG exists with label tsdbwriter.source=SOURCE_ID and no --force.
up_to_date() {
  local have
  have=$(docker image inspect -f '{{ index .Config.Labels "tsdbwriter.source" }}' "$1" 2>/dev/null || true)
  if [ "$FORCE" = 0 ] && [ "$have" = "$2" ]; then
    log "== $1 is up to date"
    return 0
  fi
  return 1
}

# import_image TAG SOURCE_ID ROOT CHANGE...: `docker import` of ROOT as TAG, labelled tsdbwriter.source=SOURCE_ID.
import_image() {
  local tag=$1 source=$2 root=$3
  shift 3
  local changes=(--change "LABEL tsdbwriter.source=$source") c
  for c in "$@"; do changes+=(--change "$c"); done
  log "== docker import $tag ($(du -sh "$root" | cut -f1))"
  tar --numeric-owner -C "$root" -c . | docker import "${changes[@]}" - "$tag" >/dev/null \
    || die "docker import of $tag failed"
}

list_images() {
  log "== images:"
  docker image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep '^local/tsdb-writer-' >&2 || true
}

# vm_image BINARY VERSION
vm_image() {
  local bin=$1 version=$2 root="$STAGE/vm-$2" source
  source=$(sha256sum "$bin" | cut -c1-64)
  up_to_date "local/tsdb-writer-victoria-metrics:$version" "$source" && return 0
  mkdir -p "$root/tmp" "$root/victoria-metrics-data"
  chmod 1777 "$root/tmp"
  mkdir -p "$root/usr/bin"
  cp -L "$bin" "$root/usr/bin/victoria-metrics"
  add_libs "$root" "$bin"
  import_image "local/tsdb-writer-victoria-metrics:$version" "$source" "$root" \
    'ENTRYPOINT ["/usr/bin/victoria-metrics"]' \
    'CMD ["-storageDataPath=/victoria-metrics-data", "-httpListenAddr=:8428"]' \
    'EXPOSE 8428'
}

find_java
ensure_victoria_metrics
vm_image "$VICTORIA_METRICS_BIN" "$(_pom_property victoriametrics.debian.version)"
if [ -x "$VICTORIA_METRICS_CURRENT_BIN" ]; then
  vm_image "$VICTORIA_METRICS_CURRENT_BIN" "$(_pom_property victoriametrics.current.version)"
fi

# ---- Kafka: the JDK, the test classpath's jars, bash + sleep, and the apache/kafka entry contract
if [ -z "${KAFKA_CLASSPATH:-}" ]; then
  build_test_classpath "$REPO_ROOT/target/container-images-build.log"
  KAFKA_CLASSPATH=$(cat "$REPO_ROOT/target/test.classpath")
fi
KAFKA_VERSION=$(_pom_property kafka.version)
KAFKA_TAG="local/tsdb-writer-kafka:$KAFKA_VERSION"
# the jars of the classpath, less the project's own (the writer jar a failsafe classpath holds)
entries=()
IFS=':' read -r -a all_entries <<< "$KAFKA_CLASSPATH"
for jar in "${all_entries[@]}"; do
  case "$jar" in "$REPO_ROOT"/target/*|target/*) ;; *.jar) entries+=("$jar") ;; esac
done
# the sources: the JDK (its release file and path), the jars (names, sizes, times) and this script (the entry script)
kafka_source=$( {
  cat "$JAVA_HOME/release"
  echo "$JAVA_HOME"
  for jar in "${entries[@]}"; do stat -L -c '%n %s %Y' "$jar"; done
  cat "${BASH_SOURCE[0]}"
} | sha256sum | cut -c1-64)
if up_to_date "$KAFKA_TAG" "$kafka_source"; then
  list_images
  exit 0
fi
root="$STAGE/kafka"
mkdir -p "$root/opt/kafka/libs" "$root/opt/kafka/config" "$root/var/lib/kafka/data" "$root/etc/kafka/docker" \
  "$root/tmp" "$root/bin" "$root/usr/bin"
chmod 1777 "$root/tmp"

# the JDK, without what a broker never reads (sources, headers, manuals, ct.sym)
cp -a "$JAVA_HOME" "$root/opt/java"
rm -rf "$root/opt/java/lib/src.zip" "$root/opt/java/lib/ct.sym" "$root/opt/java/include" "$root/opt/java/man" \
  "$root/opt/java/jmods" "$root/opt/java/demo"
mapfile -t elves < <(find "$JAVA_HOME" -type f \( -name '*.so' -o -path '*/bin/*' \) -exec sh -c \
  'head -c4 "$1" | grep -q ELF && echo "$1"' _ {} \;)
add_libs "$root" "${elves[@]}"
cp -L /bin/bash /bin/sleep "$root/bin/"
add_libs "$root" /bin/bash /bin/sleep
ln -sf bash "$root/bin/sh"
printf 'root:x:0:0:root:/root:/bin/sh\n' > "$root/etc/passwd"
printf 'root:x:0:\n' > "$root/etc/group"
printf 'hosts: files dns\n' > "$root/etc/nsswitch.conf"

# the jars, in the test classpath's order (an @argfile keeps it)
cp_entries=()
for jar in "${entries[@]}"; do
  cp -L "$jar" "$root/opt/kafka/libs/"
  cp_entries+=("/opt/kafka/libs/$(basename "$jar")")
done
[ "${#cp_entries[@]}" -gt 0 ] || die "KAFKA_CLASSPATH holds no jar"
ls "$root/opt/kafka/libs/"kafka_2.13-*.jar >/dev/null 2>&1 || die "no kafka_2.13 jar in the classpath"
(IFS=':'; printf -- '-cp "%s"\n' "${cp_entries[*]}") > "$root/opt/kafka/classpath.args"

cat > "$root/opt/kafka/config/logback.xml" <<'EOF'
<configuration>
  <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n</pattern></encoder>
  </appender>
  <logger name="org.apache.kafka.clients" level="WARN"/>
  <logger name="org.apache.kafka.common.config" level="WARN"/>
  <logger name="kafka.server.KafkaConfig" level="WARN"/>
  <root level="INFO"><appender-ref ref="OUT"/></root>
</configuration>
EOF

# The entry script, bash builtins only (the image has no coreutils but sleep).
cat > "$root/etc/kafka/docker/run" <<EOF
#!/bin/bash
# The apache/kafka image's entry contract for an image built by tsdb-writer's scripts/container-images.sh:
# KAFKA_<KEY> environment variables -> server.properties (KAFKA_LOG_DIRS -> log.dirs; __ -> _, ___ -> -), then
# kafka-storage format with CLUSTER_ID (--standalone when no controller.quorum.voters is given), then the broker.
set -euo pipefail
props=/opt/kafka/config/server.properties
jvm=(-Xms64m \${KAFKA_HEAP_OPTS:--Xmx512m} -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true
     -Dlogback.configurationFile=/opt/kafka/config/logback.xml $(quiet_jvm_flags) @/opt/kafka/classpath.args)
{
  echo "# generated by /etc/kafka/docker/run"
  for name in \$(compgen -e); do
    case "\$name" in
      KAFKA_HEAP_OPTS|KAFKA_OPTS|KAFKA_JVM_PERFORMANCE_OPTS|KAFKA_LOG4J_OPTS|KAFKA_GC_LOG_OPTS|KAFKA_JMX_OPTS|KAFKA_VERSION) continue ;;
      KAFKA_*) ;;
      *) continue ;;
    esac
    key=\${name#KAFKA_}
    key=\${key//___/-}
    key=\${key//__/@}
    key=\${key//_/.}
    key=\${key//@/_}
    echo "\${key,,}=\${!name}"
  done
  [ -n "\${KAFKA_LOG_DIRS:-}" ] || echo "log.dirs=/var/lib/kafka/data"
} > "\$props"
format=(format -t "\${CLUSTER_ID:?CLUSTER_ID is required}" -c "\$props" --ignore-formatted)
[ -n "\${KAFKA_CONTROLLER_QUORUM_VOTERS:-}" ] || format+=(--standalone)
/opt/java/bin/java -XX:TieredStopAtLevel=1 "\${jvm[@]}" kafka.tools.StorageTool "\${format[@]}"
# shellcheck disable=SC2086 # KAFKA_OPTS holds several flags
exec /opt/java/bin/java "\${jvm[@]}" \${KAFKA_OPTS:-} kafka.Kafka "\$props"
EOF
chmod 755 "$root/etc/kafka/docker/run"

import_image "$KAFKA_TAG" "$kafka_source" "$root" \
  'ENV PATH=/opt/java/bin:/bin:/usr/bin' 'ENV JAVA_HOME=/opt/java' 'WORKDIR /opt/kafka' \
  'CMD ["/etc/kafka/docker/run"]' 'EXPOSE 9092'

list_images
