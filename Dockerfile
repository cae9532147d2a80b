# tsdb-writer container image.
#
#   docker build -t tsdb-writer:local .
#   docker run --rm tsdb-writer:local run --help
#
# Stage "build" builds the shaded jar (release 21: it still runs on any Java 21) with a JDK 21 + Maven image; stage
# "aot" builds a JDK 25 AOT cache (JEP 483/514/515) from a training run on real input — Kafka (KRaft) and
# VictoriaMetrics started inside the build on loopback, examples/data's node_exporter scrapes relayed with
# --stop-at-end (scripts/aot-train-image.sh) — so a container pays class loading, linking and much of the JIT warm-up
# once, at build time, instead of at every start (docs/benchmarks.md, "Start cost"). The last stage runs the jar and
# the cache on a JRE 25 image as a non-root user. Override JAVA_OPTS only with flags the cache fits (same GC, same
# object header setting): otherwise the JVM starts without the cache and the writer logs one line saying so.
# Every flag of `run` can also be given as an environment variable (TSDB_WRITER_TIME_MULTIPLIER for
# --time-multiplier, ...), so the default command is just `run` and the configuration comes from the environment.

ARG BUILD_IMAGE=maven:3.9-eclipse-temurin-21
ARG RUNTIME_IMAGE=eclipse-temurin:25-jre
# Only for the AOT training run of stage "aot"; nothing of them reaches the runtime image.
ARG KAFKA_IMAGE=apache/kafka:4.3.1
ARG VM_IMAGE=victoriametrics/victoria-metrics:v1.150.0
# The JVM flags of the training run and of the container: the cache is valid only for compatible flags. SerialGC:
# a sidecar-sized heap needs no concurrent collector, and a container under 2 CPUs or 1792 MiB gets Serial anyway.
# NewRatio=1: the young generation is half the heap (Serial's default is a third), so batches waiting for their write
# are not promoted: under a 1 GiB limit the relay's peak heap fell from ~715 to 222-334 MiB and its RSS from ~845 to
# 344-472 MiB at the same CPU (docs/benchmarks-archive.md section 12f).
ARG JAVA_OPTS_DEFAULT="-XX:MaxRAMPercentage=75.0 -XX:InitialRAMPercentage=25.0 -XX:NewRatio=1 -XX:+ExitOnOutOfMemoryError -XX:+UseSerialGC"

FROM ${KAFKA_IMAGE} AS kafka
FROM ${VM_IMAGE} AS vm

FROM ${BUILD_IMAGE} AS build
WORKDIR /src
# Resolve the dependencies in their own layer, so a source change does not download them again.
# (Plain layers rather than BuildKit cache mounts: the file builds with the classic builder too.)
COPY pom.xml ./
RUN mvn -B -q -Dmaven.test.skip=true dependency:go-offline
COPY src ./src
RUN mvn -B -q -Dmaven.test.skip=true package \
 && cp target/tsdb-writer.jar /tsdb-writer.jar

FROM ${RUNTIME_IMAGE} AS aot
ARG JAVA_OPTS_DEFAULT
COPY --from=kafka /opt/kafka /opt/kafka
COPY --from=vm /victoria-metrics-prod /usr/local/bin/victoria-metrics
COPY --from=build /tsdb-writer.jar /app/tsdb-writer.jar
COPY examples/data /aot/data
COPY scripts/aot-train-image.sh /aot/aot-train-image.sh
RUN JAVA_OPTS="${JAVA_OPTS_DEFAULT}" KAFKA_HOME=/opt/kafka VM_BIN=/usr/local/bin/victoria-metrics JAR=/app/tsdb-writer.jar \
    DATA_DIR=/aot/data bash /aot/aot-train-image.sh /app/tsdb-writer.aot

FROM ${RUNTIME_IMAGE}
ARG JAVA_OPTS_DEFAULT
ARG UID=10001
RUN groupadd --system --gid ${UID} tsdbwriter \
 && useradd --system --uid ${UID} --gid tsdbwriter --home-dir /app --no-create-home --shell /usr/sbin/nologin tsdbwriter \
 && mkdir -p /app \
 && chown tsdbwriter:tsdbwriter /app
WORKDIR /app
COPY --from=aot /app/tsdb-writer.jar /app/tsdb-writer.jar
COPY --from=aot /app/tsdb-writer.aot /app/tsdb-writer.aot
# The heap follows the container's memory limit (cgroup aware): 75 % of it, the rest for metaspace, thread stacks,
# direct buffers and the kernel's page cache. ExitOnOutOfMemoryError lets the orchestrator restart a sick process
# instead of leaving it half alive. -XX:AOTCache: the cache built above; -Xlog:aot=off silences the JVM's own lines
# about a cache it cannot use, the writer says it in one line at start (in use / missing / stale).
# --sun-misc-unsafe-memory-access=allow: protobuf-java (remote write) still uses sun.misc.Unsafe, which JDK >= 24 warns
# about in four lines at first use (protocolbuffers/protobuf#20760); allowed explicitly, the lines go.
# Override JAVA_OPTS to change any of it.
ENV JAVA_OPTS="${JAVA_OPTS_DEFAULT} -XX:AOTCache=/app/tsdb-writer.aot -Xlog:aot=off --sun-misc-unsafe-memory-access=allow"
USER ${UID}:${UID}
# Prometheus metrics, /health/live and /health/ready.
EXPOSE 9464
# exec: java becomes PID 1 and receives SIGTERM itself, so a stop drains in-flight writes and commits.
ENTRYPOINT ["/bin/sh", "-c", "exec java $JAVA_OPTS -jar /app/tsdb-writer.jar \"$@\"", "tsdb-writer"]
CMD ["run"]
