# tsdb-writer container image.
#
#   docker build -t tsdb-writer:local .
#   docker run --rm tsdb-writer:local run --help
#
# Stage 1 builds the shaded jar with a JDK 21 + Maven image; stage 2 runs it on a JRE 21 image as a non-root user.
# Every flag of `run` can also be given as an environment variable (TSDB_WRITER_TIME_MULTIPLIER for
# --time-multiplier, ...), so the default command is just `run` and the configuration comes from the environment.

ARG BUILD_IMAGE=maven:3.9-eclipse-temurin-21
ARG RUNTIME_IMAGE=eclipse-temurin:21-jre

FROM ${BUILD_IMAGE} AS build
WORKDIR /src
# Resolve the dependencies in their own layer, so a source change does not download them again.
# (Plain layers rather than BuildKit cache mounts: the file builds with the classic builder too.)
COPY pom.xml ./
RUN mvn -B -q -Dmaven.test.skip=true dependency:go-offline
COPY src ./src
RUN mvn -B -q -Dmaven.test.skip=true package \
 && cp target/tsdb-writer.jar /tsdb-writer.jar

FROM ${RUNTIME_IMAGE}
ARG UID=10001
RUN groupadd --system --gid ${UID} tsdbwriter \
 && useradd --system --uid ${UID} --gid tsdbwriter --home-dir /app --no-create-home --shell /usr/sbin/nologin tsdbwriter \
 && mkdir -p /app \
 && chown tsdbwriter:tsdbwriter /app
WORKDIR /app
COPY --from=build /tsdb-writer.jar /app/tsdb-writer.jar
# The heap follows the container's memory limit (cgroup aware): 75 % of it, the rest for metaspace, thread stacks,
# direct buffers and the kernel's page cache. ExitOnOutOfMemoryError lets the orchestrator restart a sick process
# instead of leaving it half alive. Override JAVA_OPTS to change either.
ENV JAVA_OPTS="-XX:MaxRAMPercentage=75.0 -XX:InitialRAMPercentage=25.0 -XX:+ExitOnOutOfMemoryError"
USER ${UID}:${UID}
# Prometheus metrics, /health/live and /health/ready.
EXPOSE 9464
# exec: java becomes PID 1 and receives SIGTERM itself, so a stop drains in-flight writes and commits.
ENTRYPOINT ["/bin/sh", "-c", "exec java $JAVA_OPTS -jar /app/tsdb-writer.jar \"$@\"", "tsdb-writer"]
CMD ["run"]
