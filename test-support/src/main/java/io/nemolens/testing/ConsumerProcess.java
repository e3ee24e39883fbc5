package io.nemolens.testing;

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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The service's executable jar, {@code target/lens-consumer-app-<version>-exec.jar} of consumer-app (the jar
 * users run, the one the Dockerfile copies; so only consumer-app's integration tests, which failsafe runs in
 * that module's folder after {@code package}, can start it), extracted and with a class-data archive so that it
 * starts in a third of the time ({@link ServiceLaunch}), in a child JVM against the test broker with a
 * test's own topology: killed with SIGKILL, stopped with SIGTERM, asked over HTTP (its health and its Prometheus
 * meters). Its output goes to a log file.
 */
public final class ConsumerProcess implements AutoCloseable {

    private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(10);

    private final Process process;
    private final int port;
    private final Path log;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(HTTP_TIMEOUT).build();

    private ConsumerProcess(Process process, int port, Path log) {
        this.process = process;
        this.port = port;
        this.log = log;
    }

    /** The answer of {@code /actuator/health}: its HTTP status (-1 while nothing answers) and body. */
    public record Health(int status, String body) {

        public boolean up() {
            return status == 200;
        }

        /** A number in the details, such as {@code bufferedBytes}; -1 when absent. */
        public long detail(String name) {
            Matcher m =
                    Pattern.compile("\"" + Pattern.quote(name) + "\":(-?\\d+)").matcher(body);
            return m.find() ? Long.parseLong(m.group(1)) : -1;
        }
    }

    /**
     * Starts the jar on a free HTTP port, with the broker's {@code spring.rabbitmq.*} and the topology's
     * {@code lens.topology.*} properties, health details shown to everyone (the tests read reasons, spool and
     * open-file figures from them), then {@code properties}, which win (all as {@code --name=value}, each once).
     *
     * @param launcher what the {@code java} command line is run under (e.g. {@code unshare ...}); may be empty
     * @param jvmOptions options of the child JVM, such as {@code -Xmx256m}
     * @param properties application properties; {@code server.port} is this class's own
     */
    public static ConsumerProcess start(
            TestTopology topology, Path log, List<String> launcher, List<String> jvmOptions, Map<String, ?> properties)
            throws IOException {
        return start(topology, log, launcher, jvmOptions, List.of(), properties);
    }

    /**
     * Starts the jar as {@link #start(TestTopology, Path, List, List, Map)} does, with these jars and folders on its
     * class path after the jar's own (a test's faults, from test scope: the shipped jar holds none).
     */
    public static ConsumerProcess start(
            TestTopology topology,
            Path log,
            List<String> launcher,
            List<String> jvmOptions,
            List<Path> classPath,
            Map<String, ?> properties)
            throws IOException {
        int port = freePort();
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("management.endpoint.health.show-details", "always");
        props.putAll(properties);
        props.put("server.port", port);
        ServiceLaunch launch = ServiceLaunch.of(serviceJar());
        List<Path> entries = new ArrayList<>(List.of(launch.jar()));
        entries.addAll(classPath);
        ChildJvm jvm =
                classPath.isEmpty() ? ChildJvm.jar(launch.jar()) : ChildJvm.mainClass(launch.mainClass(), entries);
        Process process = jvm.launcher(launcher)
                .options(launch.options())
                .options(jvmOptions)
                .args(List.of(topology.applicationArguments(props)))
                .output(log)
                .start();
        return new ConsumerProcess(process, port, log);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /**
     * The service's exec jar, {@code target/lens-consumer-app-*-exec.jar} of consumer-app (whose tests run in
     * its folder), as an absolute path: what a process test starts.
     */
    public static Path serviceJar() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("target"))) {
            return s.filter(p -> p.getFileName().toString().startsWith("lens-consumer-app-")
                            && p.getFileName().toString().endsWith("-exec.jar"))
                    .map(Path::toAbsolutePath)
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException(
                            "no lens-consumer-app-*-exec.jar in target/: run consumer-app's package phase first"));
        }
    }

    /** The process itself, for its exit: {@code waitFor}, {@code exitValue}. */
    public Process process() {
        return process;
    }

    /** The process id (of the JVM itself when the launcher execs it, as {@code unshare} and {@code sh -c exec} do). */
    public long pid() {
        return process.pid();
    }

    public boolean alive() {
        return process.isAlive();
    }

    /** What the process wrote so far. */
    public String output() throws IOException {
        return Files.readString(log, StandardCharsets.UTF_8);
    }

    /** {@code /actuator/health}; status -1 while the server does not answer. */
    public Health health() {
        try {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(uri("/actuator/health"))
                            .timeout(HTTP_TIMEOUT)
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return new Health(r.statusCode(), r.body());
        } catch (IOException e) {
            return new Health(-1, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Health(-1, e.toString());
        }
    }

    /**
     * The sum of the samples of a Prometheus meter whose labels contain all of {@code labels} (each
     * {@code name="value"}); 0 when there is none, -1 while the server does not answer.
     */
    public double meter(String name, String... labels) {
        String text;
        try {
            HttpResponse<String> r = http.send(
                    HttpRequest.newBuilder(uri("/actuator/prometheus"))
                            .timeout(HTTP_TIMEOUT)
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                return -1;
            }
            text = r.body();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
        double sum = 0;
        for (String line : text.lines().toList()) {
            if (!line.startsWith(name + "{") && !line.startsWith(name + " ")) {
                continue;
            }
            int end = line.lastIndexOf(' ');
            String series = line.substring(0, end);
            boolean all = true;
            for (String label : labels) {
                all &= series.contains(label);
            }
            if (all) {
                sum += Double.parseDouble(line.substring(end + 1));
            }
        }
        return sum;
    }

    /** Messages that ended with this {@code lens_messages_total} outcome ({@code acked}, {@code poisoned}, ...). */
    public double messages(String outcome) {
        return meter("lens_messages_total", "outcome=\"" + outcome + "\"");
    }

    /** Kills the JVM with SIGKILL (no shutdown hook, nothing flushed) and waits until it is gone. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the consumer did not die of SIGKILL within a minute");
        }
    }

    /** Stops the JVM with SIGTERM (a graceful shutdown: open files are committed) and returns its exit code. */
    public int stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(3, TimeUnit.MINUTES)) {
            throw new IllegalStateException("the consumer did not stop within 3 minutes of SIGTERM");
        }
        return process.exitValue();
    }

    /** The address of a path on the service's HTTP port ({@code /actuator/...}, {@code /console/...}). */
    public URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    /** Kills it if it still runs. */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
