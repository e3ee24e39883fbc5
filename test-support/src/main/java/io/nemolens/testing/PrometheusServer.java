package io.nemolens.testing;

import static org.awaitility.Awaitility.await;

import com.jayway.jsonpath.JsonPath;
import java.io.File;
import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
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
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.representer.Representer;

/**
 * A real Prometheus server for tests: the {@code prometheus} binary ({@value #BINARY_ENV} if set, else
 * {@code prometheus} on the {@code PATH}, else a failure that says {@code apt-get install prometheus}; never a
 * skip) in a child process on a free port of the loopback address, its configuration and its TSDB in a temporary
 * folder that {@link #close()} deletes. It scrapes one job at one target every second and evaluates its rules
 * every second, and answers its HTTP API: instant queries ({@link #query}), active alerts ({@link #alerts}), rules
 * with their states ({@link #rules}, {@link #alertState}) and targets ({@link #targets}).
 *
 * <p>Rule files are loaded as they are shipped (the expressions, labels, annotations and thresholds are the
 * shipped ones): only every alert's {@code for:} is shortened to {@link Builder#alertsFor} (2 s unless told), and
 * a group's own {@code interval:}, if it has one, becomes the evaluation interval, so that a test sees an alert
 * fire within seconds. The YAML is parsed (SnakeYAML's node tree, every other scalar kept as written), not edited
 * as text; range selectors are left alone, so an expression over {@code [10m]} sees what a test produced so far.
 *
 * <p>The JSON answers are read with json-path and the YAML with SnakeYAML, both on the class path of every module
 * that uses test-support (through {@code spring-boot-starter-test}), so a module needs no dependency for it.
 *
 * <pre>
 * try (PrometheusServer prometheus = PrometheusServer.scraping("lens-consumer", "127.0.0.1:" + port, "/actuator/prometheus")
 *         .rules(Path.of("../observability/prometheus/lens-alerts.yml"))
 *         .start()) {
 *     await().until(() -&gt; prometheus.alertState("LensConsumerDown").equals("firing"));
 * }
 * </pre>
 */
public final class PrometheusServer implements AutoCloseable {

    /** The environment variable that names the {@code prometheus} binary, when it is not on the {@code PATH}. */
    public static final String BINARY_ENV = "LENS_TEST_PROMETHEUS";

    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(20);
    private static final Duration HTTP_TIMEOUT = Duration.ofSeconds(10);

    private final Process process;
    private final Path folder;
    private final Path log;
    private final int port;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(HTTP_TIMEOUT).build();

    private PrometheusServer(Process process, Path folder, Path log, int port) {
        this.process = process;
        this.folder = folder;
        this.log = log;
        this.port = port;
    }

    /** One sample of a query's result: the series' labels (with {@code __name__} when it has one) and its value. */
    public record Sample(Map<String, String> labels, String value) {

        /** The value as a number ({@code NaN}, {@code +Inf} included). */
        public double number() {
            return Double.parseDouble(value);
        }
    }

    /** An active alert of {@code /api/v1/alerts}: its name, {@code pending} or {@code firing}, labels and value. */
    public record Alert(String name, String state, Map<String, String> labels, String value) {}

    /**
     * A rule of {@code /api/v1/rules}.
     *
     * @param type {@code alerting} or {@code recording}
     * @param state of an alerting rule {@code inactive}, {@code pending} or {@code firing}; empty for a recording
     *     rule
     * @param health {@code ok}, {@code err} or {@code unknown} (not evaluated yet)
     * @param lastError the error of its last evaluation, empty when none
     * @param duration its {@code for:} in seconds (0 for a recording rule)
     */
    public record Rule(
            String name, String type, String state, String health, String lastError, String query, double duration) {}

    /** A scrape target of {@code /api/v1/targets}: job, URL, {@code up}/{@code down}/{@code unknown}, last error. */
    public record Target(String job, String scrapeUrl, String health, String lastError) {}

    /**
     * A server that will scrape {@code http://<target><metricsPath>} as job {@code job}.
     *
     * @param target {@code host:port}
     * @param metricsPath such as {@code /actuator/prometheus}
     */
    public static Builder scraping(String job, String target, String metricsPath) {
        return new Builder(job, target, metricsPath);
    }

    /** What the server scrapes and which rules it loads. */
    public static final class Builder {

        private final String job;
        private final String target;
        private final String metricsPath;
        private final List<Path> ruleFiles = new ArrayList<>();
        private Duration alertsFor = Duration.ofSeconds(2);
        private Duration interval = Duration.ofSeconds(1);

        private Builder(String job, String target, String metricsPath) {
            this.job = job;
            this.target = target;
            this.metricsPath = metricsPath;
        }

        /** Rule files to load, as shipped but for their {@code for:} durations ({@link #alertsFor}). */
        public Builder rules(Path... files) {
            ruleFiles.addAll(List.of(files));
            return this;
        }

        /** What every alert's {@code for:} becomes (2 s unless told); at least the evaluation interval. */
        public Builder alertsFor(Duration duration) {
            alertsFor = duration;
            return this;
        }

        /** The scrape and evaluation interval (1 s unless told). */
        public Builder interval(Duration duration) {
            interval = duration;
            return this;
        }

        /** Writes the configuration and the rules, starts the server and returns once it is ready. */
        public PrometheusServer start() throws IOException {
            Path binary = binary();
            Path folder = Files.createTempDirectory("lens-prometheus-");
            try {
                List<String> rules = new ArrayList<>();
                Path rulesFolder = Files.createDirectories(folder.resolve("rules"));
                for (Path file : ruleFiles) {
                    Path copy = rulesFolder.resolve(file.getFileName().toString());
                    Files.writeString(copy, shortened(file, alertsFor, interval), StandardCharsets.UTF_8);
                    rules.add(copy.toString());
                }
                Path config = folder.resolve("prometheus.yml");
                Files.writeString(config, config(rules), StandardCharsets.UTF_8);
                int port = freePort();
                Path log = folder.resolve("prometheus.log");
                Process process = new ProcessBuilder(
                                binary.toString(),
                                "--config.file=" + config,
                                "--storage.tsdb.path=" + folder.resolve("data"),
                                "--web.listen-address=127.0.0.1:" + port,
                                "--log.level=info")
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .start();
                PrometheusServer server = new PrometheusServer(process, folder, log, port);
                try {
                    server.awaitReady();
                } catch (RuntimeException e) {
                    server.close();
                    throw e;
                }
                return server;
            } catch (IOException | RuntimeException e) {
                Folders.deleteTree(folder);
                throw e;
            }
        }

        private String config(List<String> rules) {
            Map<String, Object> global = new LinkedHashMap<>();
            global.put("scrape_interval", duration(interval));
            global.put("scrape_timeout", duration(interval));
            global.put("evaluation_interval", duration(interval));
            Map<String, Object> scrape = new LinkedHashMap<>();
            scrape.put("job_name", job);
            scrape.put("metrics_path", metricsPath);
            scrape.put("static_configs", List.of(Map.of("targets", List.of(target))));
            Map<String, Object> config = new LinkedHashMap<>();
            config.put("global", global);
            config.put("rule_files", rules);
            config.put("scrape_configs", List.of(scrape));
            DumperOptions options = new DumperOptions();
            options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
            return new Yaml(options).dump(config);
        }
    }

    /**
     * The {@code prometheus} binary: {@value #BINARY_ENV} if set, else {@code prometheus} on the {@code PATH}.
     *
     * @throws IllegalStateException when there is none, saying how to install one
     */
    public static Path binary() {
        String named = System.getenv(BINARY_ENV);
        if (named != null && !named.isBlank()) {
            Path path = Path.of(named);
            if (!Files.isExecutable(path)) {
                throw new IllegalStateException(BINARY_ENV + "=" + named + " is not an executable file");
            }
            return path;
        }
        String searchPath = Optional.ofNullable(System.getenv("PATH")).orElse("");
        for (String dir : Pattern.compile(Pattern.quote(File.pathSeparator)).split(searchPath, -1)) {
            if (!dir.isEmpty()) {
                Path candidate = Path.of(dir, "prometheus");
                if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                    return candidate;
                }
            }
        }
        throw new IllegalStateException("no prometheus binary for the tests that run Prometheus: install Debian's"
                + " (apt-get install prometheus, which brings /usr/bin/prometheus and promtool), or set "
                + BINARY_ENV + " to a prometheus 2.x binary");
    }

    /**
     * The rule file's YAML with every {@code for:} set to {@code alertsFor} and every group's {@code interval:}
     * (if any) to {@code interval}; everything else as shipped.
     */
    static String shortened(Path file, Duration alertsFor, Duration interval) throws IOException {
        LoaderOptions loader = new LoaderOptions();
        DumperOptions dumper = new DumperOptions();
        dumper.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
        dumper.setSplitLines(false);
        Yaml yaml = new Yaml(new SafeConstructor(loader), new Representer(dumper), dumper, loader);
        Node root;
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            root = yaml.compose(in);
        }
        if (root == null) {
            throw new IllegalArgumentException(file + " holds no YAML document");
        }
        Node groups = value(root, "groups");
        if (!(groups instanceof SequenceNode sequence)) {
            throw new IllegalArgumentException(file + " is no rule file: it has no groups: list");
        }
        for (Node group : sequence.getValue()) {
            replace(group, "interval", duration(interval));
            if (value(group, "rules") instanceof SequenceNode rules) {
                for (Node rule : rules.getValue()) {
                    replace(rule, "for", duration(alertsFor));
                }
            }
        }
        StringWriter out = new StringWriter();
        out.write("# " + file.getFileName() + " as shipped, with every for: set to " + duration(alertsFor)
                + " for a test (PrometheusServer)\n");
        yaml.serialize(root, out);
        return out.toString();
    }

    private static @Nullable Node value(Node mapping, String key) {
        if (mapping instanceof MappingNode m) {
            for (NodeTuple t : m.getValue()) {
                if (t.getKeyNode() instanceof ScalarNode k && k.getValue().equals(key)) {
                    return t.getValueNode();
                }
            }
        }
        return null;
    }

    /** Sets {@code key}'s scalar value in a mapping that has the key; nothing otherwise. */
    private static void replace(Node mapping, String key, String value) {
        if (!(mapping instanceof MappingNode m)) {
            return;
        }
        List<NodeTuple> tuples = m.getValue();
        for (int i = 0; i < tuples.size(); i++) {
            NodeTuple t = tuples.get(i);
            if (t.getKeyNode() instanceof ScalarNode k && k.getValue().equals(key)) {
                Node old = t.getValueNode();
                tuples.set(
                        i,
                        new NodeTuple(
                                k,
                                new ScalarNode(
                                        Tag.STR,
                                        value,
                                        old.getStartMark(),
                                        old.getEndMark(),
                                        DumperOptions.ScalarStyle.PLAIN)));
            }
        }
    }

    /** A Prometheus duration: {@code 2s}, {@code 500ms}. */
    private static String duration(Duration d) {
        long millis = d.toMillis();
        return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private void awaitReady() {
        try {
            await().atMost(READY_TIMEOUT)
                    .pollInterval(Duration.ofMillis(100))
                    .ignoreExceptionsInstanceOf(IOException.class)
                    .until(() -> {
                        if (!process.isAlive()) {
                            throw new IllegalStateException(
                                    "prometheus exited with " + process.exitValue() + ":\n" + log());
                        }
                        return get("/-/ready").statusCode() == 200;
                    });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new IllegalStateException("prometheus not ready within " + READY_TIMEOUT + ":\n" + log(), e);
        }
    }

    /** {@code http://127.0.0.1:<port>}: its web UI and HTTP API. */
    public URI uri() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** What the server logged so far (for a failure message). */
    public String log() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(its log could not be read: " + e + ")";
        }
    }

    /**
     * The result of an instant query ({@code /api/v1/query}, now): one sample per series of a vector, the last
     * value of each series of a matrix, one sample without labels for a scalar or a string.
     *
     * @throws IllegalArgumentException when Prometheus refuses the query (its error, such as a parse error)
     */
    public List<Sample> query(String promql) {
        Object data = data("/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8));
        String type = String.valueOf(field(data, "resultType"));
        Object result = field(data, "result");
        List<Sample> samples = new ArrayList<>();
        if (type.equals("scalar") || type.equals("string")) {
            samples.add(new Sample(Map.of(), String.valueOf(list(result).get(1))));
            return samples;
        }
        for (Object series : list(result)) {
            Object value = field(series, "value");
            if (value == null) {
                List<?> values = list(field(series, "values"));
                value = values.get(values.size() - 1);
            }
            samples.add(new Sample(
                    strings(field(series, "metric")), String.valueOf(list(value).get(1))));
        }
        return samples;
    }

    /** The active (pending or firing) alerts of {@code /api/v1/alerts}. */
    public List<Alert> alerts() {
        List<Alert> alerts = new ArrayList<>();
        for (Object a : list(field(data("/api/v1/alerts"), "alerts"))) {
            Map<String, String> labels = strings(field(a, "labels"));
            alerts.add(new Alert(
                    labels.getOrDefault("alertname", ""),
                    String.valueOf(field(a, "state")),
                    labels,
                    String.valueOf(field(a, "value"))));
        }
        return alerts;
    }

    /** Each active alert's name and its strongest state ({@code firing} over {@code pending}); inactive ones absent. */
    public Map<String, String> alertStates() {
        Map<String, String> states = new LinkedHashMap<>();
        for (Alert a : alerts()) {
            states.merge(a.name(), a.state(), (x, y) -> x.equals("firing") ? x : y);
        }
        return states;
    }

    /** Every rule loaded, in the order of its files and groups. */
    public List<Rule> rules() {
        List<Rule> rules = new ArrayList<>();
        for (Object group : list(field(data("/api/v1/rules"), "groups"))) {
            for (Object r : list(field(group, "rules"))) {
                Object duration = field(r, "duration");
                rules.add(new Rule(
                        String.valueOf(field(r, "name")),
                        String.valueOf(field(r, "type")),
                        text(field(r, "state")),
                        text(field(r, "health")),
                        text(field(r, "lastError")),
                        text(field(r, "query")),
                        duration instanceof Number n ? n.doubleValue() : 0));
            }
        }
        return rules;
    }

    /**
     * The state of an alerting rule: {@code inactive}, {@code pending} or {@code firing} (the strongest of its
     * series).
     *
     * @throws IllegalArgumentException when no alerting rule of that name is loaded (the message lists those that are)
     */
    public String alertState(String alert) {
        List<Rule> rules = rules();
        return rules.stream()
                .filter(r -> r.type().equals("alerting") && r.name().equals(alert))
                .map(Rule::state)
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no alerting rule " + alert + " loaded; the rules: "
                        + rules.stream().map(Rule::name).toList()));
    }

    /** The scrape targets and their health. */
    public List<Target> targets() {
        List<Target> targets = new ArrayList<>();
        for (Object t : list(field(data("/api/v1/targets"), "activeTargets"))) {
            targets.add(new Target(
                    strings(field(t, "labels")).getOrDefault("job", ""),
                    text(field(t, "scrapeUrl")),
                    text(field(t, "health")),
                    text(field(t, "lastError"))));
        }
        return targets;
    }

    /** The {@code data} of a successful API answer. */
    private Object data(String pathAndQuery) {
        HttpResponse<String> response;
        try {
            response = get(pathAndQuery);
        } catch (IOException e) {
            throw new UncheckedIOException("GET " + pathAndQuery + " of " + this, e);
        }
        Object body = JsonPath.parse(response.body()).json();
        if (response.statusCode() != 200 || !"success".equals(field(body, "status"))) {
            String error = field(body, "errorType") + ": " + field(body, "error");
            if (response.statusCode() == 400 || response.statusCode() == 422) {
                throw new IllegalArgumentException(error);
            }
            throw new IllegalStateException("GET " + pathAndQuery + ": " + response.statusCode() + " " + error);
        }
        Object data = field(body, "data");
        if (data == null) {
            throw new IllegalStateException("GET " + pathAndQuery + ": no data in " + response.body());
        }
        return data;
    }

    private HttpResponse<String> get(String pathAndQuery) throws IOException {
        try {
            return http.send(
                    HttpRequest.newBuilder(URI.create(uri() + pathAndQuery))
                            .timeout(HTTP_TIMEOUT)
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    private static @Nullable Object field(@Nullable Object object, String name) {
        return object instanceof Map<?, ?> m ? m.get(name) : null;
    }

    private static List<?> list(@Nullable Object object) {
        return object instanceof List<?> l ? l : List.of();
    }

    private static String text(@Nullable Object object) {
        return object == null ? "" : object.toString();
    }

    private static Map<String, String> strings(@Nullable Object object) {
        Map<String, String> strings = new LinkedHashMap<>();
        if (object instanceof Map<?, ?> m) {
            m.forEach((k, v) -> strings.put(String.valueOf(k), String.valueOf(v)));
        }
        return strings;
    }

    /** Stops the server (SIGTERM, then SIGKILL after 20 s) and deletes its folder. */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        Folders.deleteTreeOnClose(folder);
    }

    @Override
    public String toString() {
        return "PrometheusServer[" + uri() + ", pid " + process.pid() + (process.isAlive() ? "" : ", exited") + "]";
    }
}
