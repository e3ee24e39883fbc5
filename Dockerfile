# The NeMo Lens consumer (and its jar commands, e.g. "poison"), and the telemetry generator's jar
# (/app/lens-generator.jar, the compose files' telemetry-generator service), built from this repository.
#   docker build -t nemo-lens/consumer:0.1.0-SNAPSHOT .
# Used by docker-compose.rabbitmq.yml and docker-compose.rabbitmq+infra.yml.

FROM eclipse-temurin:17.0.17_10-jdk AS build
WORKDIR /src
# the whole reactor (every module's pom must be there); .dockerignore keeps build output and .git out
COPY . .
RUN ./mvnw -B -q -DskipTests -pl consumer-app,generator -am package \
 && cp consumer-app/target/lens-consumer-app-*-exec.jar /src/lens-consumer.jar \
 && cp generator/target/lens-generator-*-exec.jar /src/lens-generator.jar

# Java 25 at run time (the jar is Java 17 bytecode and runs on 17 too): the end-to-end bench archived 7-26 % more
# protobuf spans/s on 25 than on 17, alternating runs on one machine (BENCHMARKS.md, issue 20)
FROM eclipse-temurin:25.0.1_8-jre
# curl for the compose health check (the temurin images do not promise one)
RUN apt-get update \
 && apt-get install -y --no-install-recommends curl \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system lens && useradd --system --gid lens --home-dir /app --shell /usr/sbin/nologin lens \
 && mkdir -p /app /var/lib/nemo-lens/archive && chown -R lens:lens /var/lib/nemo-lens
WORKDIR /app
COPY --from=build /src/lens-consumer.jar /app/lens-consumer.jar
COPY --from=build /src/lens-generator.jar /app/lens-generator.jar
USER lens
EXPOSE 8080
VOLUME ["/var/lib/nemo-lens/archive"]
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=12 \
  CMD curl -fsS http://localhost:8080/actuator/health || exit 1
# -XX:+ExitOnOutOfMemoryError: an exhausted heap ends the process at once (exit code 3) for the supervisor to
# restart, instead of threads dying one by one while health stays UP (README, "Memory")
ENTRYPOINT ["java", "-XX:MaxRAMPercentage=75", "-XX:+UseParallelGC", "-XX:+ExitOnOutOfMemoryError", "-jar", "/app/lens-consumer.jar"]
