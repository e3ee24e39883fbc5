package io.nemolens.testing;

import com.jayway.jsonpath.JsonPath;
import java.io.IOException;
import java.io.UncheckedIOException;
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
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A real Trino for tests, the engine that reads the archive's Iceberg tables: Maven Central's {@code trino-server}
 * tarball (a test dependency of the module, so that the local repository caches it; its path in the system property
 * {@value #TARBALL_PROPERTY}, which the build sets), its {@code lib/} and Iceberg plugin extracted once into
 * {@code target/}, run as a child process on Java 24 or newer ({@value #JAVA_PROPERTY}, else Temurin 25 where machines
 * of our kind have it; a failure that says so otherwise, never a skip) on a free port of the loopback address, one
 * coordinator that is also its worker. Catalogs are made and dropped at run time ({@code CREATE CATALOG}, dynamic
 * catalog management), so that one server serves every test of a run: it starts at the first {@link #shared()} (20 to
 * 40 s on 2 cores) and stops when the test JVM exits. Statements go through Trino's HTTP protocol
 * ({@code /v1/statement}), answers read with json-path: no driver on the class path.
 */
public final class TrinoServer {

    /** The system property that names the {@code trino-server} tarball. */
    public static final String TARBALL_PROPERTY = "lens.test.trino.tarball";

    /** The system property that names the {@code java} Trino runs on (24 or newer). */
    public static final String JAVA_PROPERTY = "lens.test.trino.java";

    private static final String DEFAULT_JAVA = "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java";
    private static final Duration READY_TIMEOUT = Duration.ofMinutes(3);
    private static final Duration STATEMENT_TIMEOUT = Duration.ofMinutes(5);

    private static @Nullable TrinoServer shared;

    /**
     * What a statement answered.
     *
     * @param columns the names of its columns
     * @param rows its rows, each value as JSON gives it (numbers as {@link Number}, text as {@link String})
     * @param stats the query's statistics ({@code totalSplits}, {@code processedRows}, ...)
     */
    public record Result(List<String> columns, List<List<Object>> rows, Map<String, Object> stats) {

        /** The one value of a one-row, one-column answer, as a long. */
        public long longValue() {
            if (rows.size() != 1 || rows.get(0).size() != 1) {
                throw new IllegalStateException("not one value: " + rows);
            }
            return ((Number) rows.get(0).get(0)).longValue();
        }

        /**
         * The splits the query's leaf stages read (its table scans: a split per data file read, for the archive's
         * files, smaller than a split): from the statistics' stage tree, which Trino sends with the last answer.
         */
        public long scanSplits() {
            if (!(stats.get("rootStage") instanceof Map<?, ?> root)) {
                throw new IllegalStateException("no stage statistics in " + stats);
            }
            return leafSplits(root);
        }

        private static long leafSplits(Map<?, ?> stage) {
            if (stage.get("subStages") instanceof List<?> subs && !subs.isEmpty()) {
                long sum = 0;
                for (Object sub : subs) {
                    sum += leafSplits((Map<?, ?>) sub);
                }
                return sum;
            }
            return stage.get("totalSplits") instanceof Number n ? n.longValue() : 0;
        }

        /** A number of the query's statistics. */
        public long stat(String name) {
            Object value = stats.get(name);
            if (!(value instanceof Number n)) {
                throw new IllegalStateException("no statistic " + name + " in " + stats);
            }
            return n.longValue();
        }
    }

    /** A statement Trino failed, with its error as Trino says it. */
    public static final class StatementFailedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        StatementFailedException(String sql, String error) {
            super("Trino failed " + sql + ": " + error);
        }
    }

    private final Process process;
    private final Path log;
    private final int port;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private TrinoServer(Process process, Path log, int port) {
        this.process = process;
        this.log = log;
        this.port = port;
    }

    /** This run's Trino: started at the first call, stopped when the JVM exits. */
    public static synchronized TrinoServer shared() throws IOException {
        TrinoServer server = shared;
        if (server == null || !server.process.isAlive()) {
            server = start(Path.of("target").toAbsolutePath());
            shared = server;
            TrinoServer stopping = server;
            Runtime.getRuntime().addShutdownHook(new Thread(stopping::stop, "trino-stop"));
        }
        return server;
    }

    private static TrinoServer start(Path target) throws IOException {
        Path home = install(target);
        String java = System.getProperty(JAVA_PROPERTY, DEFAULT_JAVA);
        if (!Files.isExecutable(Path.of(java))) {
            throw new IllegalStateException("Trino needs Java 24 or newer: none at " + java + " (set -D" + JAVA_PROPERTY
                    + " to one; machines of our kind have Temurin 25 at " + DEFAULT_JAVA + ")");
        }
        int port = freePort();
        Path run = target.resolve("trino-run-" + UUID.randomUUID().toString().substring(0, 8));
        Path etc = run.resolve("etc");
        Files.createDirectories(etc);
        Files.writeString(
                etc.resolve("config.properties"),
                String.join(
                        "\n",
                        "coordinator=true",
                        "node-scheduler.include-coordinator=true",
                        "http-server.http.port=" + port,
                        "discovery.uri=http://127.0.0.1:" + port,
                        "query.max-memory=1GB",
                        "query.max-memory-per-node=1GB",
                        "catalog.management=dynamic",
                        "catalog.store=memory",
                        "plugin.dir=" + home.resolve("plugin"),
                        ""));
        Files.writeString(etc.resolve("log.properties"), "io.trino=WARN\n");
        Path log = run.resolve("trino.log");
        List<String> command = new ArrayList<>(List.of(
                java,
                "-Xmx2G",
                "-XX:+UseG1GC",
                "-XX:+ExitOnOutOfMemoryError",
                "-XX:+EnableDynamicAgentLoading",
                "--enable-native-access=ALL-UNNAMED",
                "-Djdk.attach.allowAttachSelf=true",
                "-Dfile.encoding=UTF-8",
                "-Dnode.environment=test",
                "-Dnode.id=" + UUID.randomUUID(),
                "-Dnode.data-dir=" + run.resolve("data"),
                "-Dconfig=" + etc.resolve("config.properties"),
                "-Dlog.levels-file=" + etc.resolve("log.properties"),
                "-cp",
                home.resolve("lib") + "/*",
                "io.trino.server.TrinoServer"));
        Process process = new ProcessBuilder(command)
                .directory(run.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        TrinoServer server = new TrinoServer(process, log, port);
        server.awaitReady();
        return server;
    }

    /**
     * The tarball's {@code lib/} and Iceberg plugin, extracted once into {@code target/trino-server-<version>} (a
     * marker file says the extraction finished). The tarball is extracted whole (its plugins share jars as hard links,
     * so one plugin alone cannot be taken), then everything but those two is deleted: Trino loads every plugin it
     * finds, and one is all the tests need.
     */
    private static Path install(Path target) throws IOException {
        String tarball = System.getProperty(TARBALL_PROPERTY);
        if (tarball == null || !Files.isRegularFile(Path.of(tarball))) {
            throw new IllegalStateException("no trino-server tarball (-D" + TARBALL_PROPERTY + "=" + tarball
                    + "): the module's build resolves io.trino:trino-server:tar.gz from Maven Central and sets it");
        }
        String name = Path.of(tarball).getFileName().toString();
        String stem = name.substring(0, name.length() - ".tar.gz".length());
        Path home = target.resolve(stem);
        Path done = home.resolve(".extracted");
        if (Files.exists(done)) {
            return home;
        }
        Path whole = target.resolve(stem + ".whole");
        deleteTree(whole);
        deleteTree(home);
        Files.createDirectories(whole);
        run(List.of("tar", "-xzf", tarball, "-C", whole.toString(), "--strip-components=1"), "extracting " + tarball);
        Files.createDirectories(home.resolve("plugin"));
        Files.move(whole.resolve("lib"), home.resolve("lib"));
        Files.move(
                whole.resolve("plugin").resolve("iceberg"),
                home.resolve("plugin").resolve("iceberg"));
        deleteTree(whole);
        Files.writeString(done, tarball);
        return home;
    }

    private static void run(List<String> command, String what) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(5, TimeUnit.MINUTES) || p.exitValue() != 0) {
                throw new IOException(what + " failed: " + out);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while " + what, e);
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (Files.exists(root)) {
            run(List.of("rm", "-rf", root.toString()), "deleting " + root);
        }
    }

    private void awaitReady() throws IOException {
        long deadline = System.nanoTime() + READY_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IOException("Trino exited with " + process.exitValue() + ": " + tail());
            }
            try {
                HttpResponse<String> info = http.send(
                        HttpRequest.newBuilder(uri("/v1/info"))
                                .timeout(Duration.ofSeconds(5))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (info.statusCode() == 200 && Boolean.FALSE.equals(JsonPath.read(info.body(), "$.starting"))) {
                    // the first statement also waits until a worker (itself) is active
                    execute("SELECT 1");
                    return;
                }
            } catch (IOException | RuntimeException e) {
                // not answering yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while Trino started", e);
            }
            sleep(Duration.ofMillis(500));
        }
        stop();
        throw new IOException("Trino did not start within " + READY_TIMEOUT + ": " + tail());
    }

    /**
     * Makes a catalog of the Iceberg connector with these properties (the recipe's {@code etc/catalog/<name>.properties}
     * lines), replacing one of the same name.
     */
    public void createIcebergCatalog(String name, Map<String, String> properties) {
        dropCatalog(name);
        StringBuilder with = new StringBuilder();
        for (Map.Entry<String, String> e : properties.entrySet()) {
            with.append(with.isEmpty() ? "" : ", ")
                    .append('"')
                    .append(e.getKey())
                    .append("\" = '")
                    .append(e.getValue().replace("'", "''"))
                    .append('\'');
        }
        execute("CREATE CATALOG " + name + " USING iceberg WITH (" + with + ")");
    }

    /** Drops a catalog made by {@link #createIcebergCatalog}, if it exists. */
    public void dropCatalog(String name) {
        execute("DROP CATALOG IF EXISTS " + name);
    }

    /** Runs a statement to its end and returns what it answered. */
    public Result execute(String sql) {
        try {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(uri("/v1/statement"))
                            .timeout(Duration.ofSeconds(60))
                            .header("X-Trino-User", "lens-test")
                            .POST(HttpRequest.BodyPublishers.ofString(sql))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            List<String> columns = new ArrayList<>();
            List<List<Object>> rows = new ArrayList<>();
            Map<String, Object> stats = new LinkedHashMap<>();
            long deadline = System.nanoTime() + STATEMENT_TIMEOUT.toNanos();
            while (true) {
                if (response.statusCode() == 503 || response.statusCode() == 429) {
                    sleep(Duration.ofMillis(100));
                } else if (response.statusCode() != 200) {
                    throw new StatementFailedException(sql, "HTTP " + response.statusCode() + " " + response.body());
                }
                Map<String, Object> answer = JsonPath.read(response.body(), "$");
                if (answer.get("error") instanceof Map<?, ?> error) {
                    throw new StatementFailedException(sql, error.get("errorName") + ": " + error.get("message"));
                }
                if (columns.isEmpty() && answer.get("columns") instanceof List<?> cs) {
                    for (Object c : cs) {
                        columns.add(String.valueOf(((Map<?, ?>) c).get("name")));
                    }
                }
                if (answer.get("data") instanceof List<?> data) {
                    for (Object row : data) {
                        rows.add(new ArrayList<>((List<?>) row));
                    }
                }
                if (answer.get("stats") instanceof Map<?, ?> s) {
                    stats.clear();
                    s.forEach((k, v) -> stats.put(String.valueOf(k), v));
                }
                Object next = answer.get("nextUri");
                if (next == null) {
                    return new Result(List.copyOf(columns), rows, stats);
                }
                if (System.nanoTime() > deadline) {
                    throw new StatementFailedException(sql, "no answer within " + STATEMENT_TIMEOUT);
                }
                response = http.send(
                        HttpRequest.newBuilder(URI.create(next.toString()))
                                .timeout(Duration.ofSeconds(60))
                                .header("X-Trino-User", "lens-test")
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Trino did not answer " + sql + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while Trino ran " + sql, e);
        }
    }

    /** The one number a query answers ({@code SELECT count(*) ...}). */
    public long count(String sql) {
        return execute(sql).longValue();
    }

    /** Stops the server (also at the test JVM's exit). */
    public void stop() {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(30, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private URI uri(String path) {
        return URI.create("http://127.0.0.1:" + port + path);
    }

    private String tail() {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
