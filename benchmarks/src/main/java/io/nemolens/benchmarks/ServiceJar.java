package io.nemolens.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.rabbitmq.client.ConnectionFactory;
import io.nemolens.topology.LensTopology;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * README's command, run by the bench: {@code java -XX:+ExitOnOutOfMemoryError -XX:+UseParallelGC -Xmx512m -jar
 * consumer-app/target/lens-consumer-app-<version>-exec.jar} on the bench's own {@code java}, in a process of its own,
 * with the service's default settings (Tomcat, the actuator, the console, the run watch, INFO logs into a file) and
 * only these on its command line: the broker, a topology and an archive folder of the bench's own, a free HTTP port,
 * a user, and the {@code listener} endpoint exposed and writable, through which the bench pauses it while it fills
 * its queue and resumes it for a measured run ({@code lens.consumer.auto-startup=false}: it consumes nothing before
 * the bench asks). Measured from outside: its {@code listener} endpoint's acknowledged messages, its Prometheus
 * endpoint, its process's CPU time.
 */
final class ServiceJar implements AutoCloseable {

    /** README's JVM options, in README's order. */
    static final List<String> README_JVM_OPTIONS =
            List.of("-XX:+ExitOnOutOfMemoryError", "-XX:+UseParallelGC", "-Xmx512m");

    private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(30);
    private static final String USER = "bench";

    private final Process process;
    private final Path log;
    private final Path archiveFolder;
    private final int port;
    private final String password;
    private final LensTopology topology;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(HTTP_TIMEOUT).build();

    private ServiceJar(
            Process process, Path log, Path archiveFolder, int port, String password, LensTopology topology) {
        this.process = process;
        this.log = log;
        this.archiveFolder = archiveFolder;
        this.port = port;
        this.password = password;
        this.topology = topology;
    }

    /**
     * Starts the jar on {@code topology} (declared by the jar, as it is in production) and waits until its listener
     * endpoint answers.
     *
     * @param jvmOptions options after README's (a flight recording), usually none
     */
    static ServiceJar start(Path jar, ConnectionFactory broker, LensTopology topology, List<String> jvmOptions)
            throws Exception {
        String java = ProcessHandle.current()
                .info()
                .command()
                .orElseThrow(() -> new IllegalStateException("this JVM's java executable is not known"));
        Path archiveFolder = Files.createTempDirectory("lens-bench-jar-archive");
        Path log = Files.createTempFile("lens-bench-jar", ".log");
        int port = freePort();
        String password = UUID.randomUUID().toString();
        List<String> command = new ArrayList<>();
        command.add(java);
        command.addAll(README_JVM_OPTIONS);
        command.addAll(jvmOptions);
        command.add("-jar");
        command.add(jar.toString());
        Map<String, Object> props = BenchConsumer.serviceProperties(broker, topology);
        props.put("lens.archive.path", archiveFolder.toString());
        props.put("server.port", port);
        props.put("lens.consumer.auto-startup", "false");
        props.put("management.endpoints.web.exposure.include", "health,info,prometheus,listener");
        props.put("management.endpoint.listener.access", "unrestricted");
        props.put("spring.security.user.name", USER);
        props.put("spring.security.user.password", password);
        props.forEach((k, v) -> command.add("--" + k + "=" + v));
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        ServiceJar service = new ServiceJar(process, log, archiveFolder, port, password, topology);
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly, "lens-bench-jar-destroyer"));
        try {
            service.awaitStarted(Duration.ofMinutes(2));
        } catch (Exception | Error e) {
            service.close();
            throw e;
        }
        return service;
    }

    /** {@code consumer-app/target/lens-consumer-app-*-exec.jar}, from the repository's root or a module's folder. */
    static Path readmeJar() throws IOException {
        for (Path target : List.of(Path.of("consumer-app/target"), Path.of("../consumer-app/target"))) {
            if (!Files.isDirectory(target)) {
                continue;
            }
            try (Stream<Path> s = Files.list(target)) {
                var found = s.filter(p -> p.getFileName().toString().startsWith("lens-consumer-app-")
                                && p.getFileName().toString().endsWith("-exec.jar"))
                        .findFirst();
                if (found.isPresent()) {
                    return found.get().toAbsolutePath().normalize();
                }
            }
        }
        throw new IllegalStateException("no consumer-app/target/lens-consumer-app-*-exec.jar: build it first"
                + " (./mvnw -pl benchmarks -am verify -DskipTests -Pbench builds it)");
    }

    long pid() {
        return process.pid();
    }

    Path archiveFolder() {
        return archiveFolder;
    }

    LensTopology topology() {
        return topology;
    }

    /** The messages it acknowledged so far ({@code GET /actuator/listener}). */
    long acknowledged() throws Exception {
        return listener("GET", null).path("acknowledged").asLong();
    }

    /** Pauses its listener and waits until it is paused (the messages in hand finished). */
    void pause() throws Exception {
        JsonNode state = listener("POST", "{\"running\":false}");
        if (state.path("running").asBoolean()) {
            throw failure("still runs after a pause: " + state);
        }
    }

    /** Resumes (or starts) its listener. */
    void resume() throws Exception {
        JsonNode state = listener("POST", "{\"running\":true}");
        if (!state.path("running").asBoolean()) {
            throw failure("does not run after a resume: " + state);
        }
    }

    /** Its Prometheus endpoint's text, as Prometheus scrapes it (anonymously). */
    String prometheus() throws Exception {
        HttpResponse<String> r = send(HttpRequest.newBuilder(uri("/actuator/prometheus"))
                .timeout(HTTP_TIMEOUT)
                .build());
        if (r.statusCode() != 200) {
            throw failure("/actuator/prometheus answered " + r.statusCode());
        }
        return r.body();
    }

    /** Stops it with SIGTERM (a graceful stop: every open file committed) and returns its exit status. */
    int stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(3, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IllegalStateException("README's jar did not stop within 3 minutes of SIGTERM; its log: " + log);
        }
        return process.exitValue();
    }

    /** The last lines of its log, for a failure's message. */
    String logTail(int lines) {
        try {
            List<String> all = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(its log " + log + " cannot be read: " + e + ")";
        }
    }

    /** Lines of its log that hold {@code text}. */
    List<String> logLines(String text) throws IOException {
        return Files.readAllLines(log, StandardCharsets.UTF_8).stream()
                .filter(l -> l.contains(text))
                .toList();
    }

    /** Kills it if it still runs; deletes its archive folder and its log. */
    @Override
    public void close() throws IOException {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        try {
            ArchiveFiles.delete(archiveFolder);
        } finally {
            Files.deleteIfExists(log);
        }
    }

    private void awaitStarted(Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw failure("ended before it answered");
            }
            try {
                HttpResponse<String> r = send(authorized(HttpRequest.newBuilder(uri("/actuator/listener")))
                        .timeout(HTTP_TIMEOUT)
                        .build());
                if (r.statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            if (System.nanoTime() > deadline) {
                throw failure("did not answer within " + timeout.toSeconds() + " s");
            }
            Thread.sleep(200);
        }
    }

    private JsonNode listener(String method, @Nullable String body) throws Exception {
        HttpRequest.Builder request =
                authorized(HttpRequest.newBuilder(uri("/actuator/listener"))).timeout(HTTP_TIMEOUT);
        if (body != null) {
            request.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(body));
        }
        HttpResponse<String> r = send(request.build());
        if (r.statusCode() != 200) {
            throw failure(method + " /actuator/listener answered " + r.statusCode() + ": " + r.body());
        }
        return PrototypeProcess.JSON.readTree(r.body());
    }

    private HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private HttpRequest.Builder authorized(HttpRequest.Builder builder) {
        return builder.header(
                "Authorization",
                "Basic "
                        + Base64.getEncoder().encodeToString((USER + ":" + password).getBytes(StandardCharsets.UTF_8)));
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private IllegalStateException failure(String what) {
        return new IllegalStateException("README's jar (pid " + process.pid() + ") " + what + "; "
                + (process.isAlive() ? "it still runs" : "it exited with status " + process.exitValue())
                + "; its log ended with:\n" + logTail(40));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
