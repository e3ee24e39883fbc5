package io.nemolens.app.monitoring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.app.testing.ClaimsRegistry;
import io.nemolens.app.testing.Service;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.PrometheusServer;
import io.nemolens.testing.RunningConsumer;
import io.nemolens.testing.S3Server;
import io.nemolens.testing.TcpProxy;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The shipped Prometheus rules and Grafana dashboard against a real Prometheus ({@link PrometheusServer}) that
 * scrapes a running consumer as job {@code lens-consumer}: the alerts' expressions, labels and thresholds are the
 * shipped ones, only their {@code for:} is 2 s. The consumer archives to an S3 bucket ({@link S3Server}) and
 * claims its messages in a PostgreSQL registry reached through a {@link TcpProxy}; its archive's
 * {@code health.max-lag} is 3 s and its files are committed 15 s after they open, so rows sit uncommitted past
 * the threshold. In turn:
 *
 * <ol>
 *   <li>spans published: {@code LensArchiveLagHigh} fires, and resolves once their files are committed;
 *   <li>the S3 server stopped while spans wait in open files: {@code LensObjectStoreFailing} fires when their
 *       upload fails, and resolves once the server is back;
 *   <li>the registry's proxy cut while spans wait for their claims: {@code LensClaimRegistryFailing} fires, and
 *       resolves once the proxy listens again;
 *   <li>every expression of the dashboard, with its variables as Grafana fills them ({@code $job}, {@code $instance}
 *       "All", {@code $__rate_interval}), returns at least one series; nothing was poisoned or dead-lettered (the
 *       faults are transient);
 *   <li>the consumer closed: {@code LensConsumerDown} fires; started again on the same port, it resolves.
 * </ol>
 *
 * A wait that times out says which alerts are active, what Prometheus sees of the meters involved, and its
 * targets' health.
 */
class PrometheusAlertsIT {

    private static final Path OBSERVABILITY = Path.of(System.getProperty("basedir", "."))
            .resolve("../observability")
            .normalize();
    private static final Path ALERTS = OBSERVABILITY.resolve("prometheus/lens-alerts.yml");
    private static final Path RECORDING = OBSERVABILITY.resolve("prometheus/lens-recording.yml");
    private static final Path DASHBOARD = OBSERVABILITY.resolve("grafana/lens-consumer.json");

    /** The job the shipped rules select ({@code job="lens-consumer"}). */
    private static final String JOB = "lens-consumer";

    private static final Duration MAX_LAG = Duration.ofSeconds(3);
    /** Files are committed this long after they open: long enough for the lag alert to fire first. */
    private static final Duration MAX_AGE = Duration.ofSeconds(15);
    /** How long an alert may take to change state once its cause is there (scrape, evaluation, its 2 s for:). */
    private static final Duration ALERT_TIMEOUT = Duration.ofSeconds(30);

    private static final String STATE_INACTIVE = "inactive";
    private static final String STATE_FIRING = "firing";

    /** The meters the alerts read, as Prometheus scraped them: what a failed wait prints. */
    private static final String METERS_OF_THE_ALERTS = "{job=\"" + JOB + "\", __name__=~\"up|lens_archive_lag_seconds"
            + "|lens_archive_health_max_lag_seconds|lens_archive_store_failing_seconds|lens_archive_claims_failing_seconds"
            + "|lens_archive_store_waiting_files|lens_archive_claims_waiting|lens_archive_accepting"
            + "|lens_archive_spool_entries|lens_messages_total\"}";

    /** A Grafana variable in an expression: {@code $name}, {@code ${name}} or {@code ${name:format}}. */
    private static final Pattern VARIABLE = Pattern.compile("\\$\\{(\\w+)(?::\\w+)?}|\\$(\\w+)");

    @RegisterExtension
    final ConsumerExtension lens = Service.extension().manualStart();

    private final String claimsTable = ClaimsRegistry.newTable();
    private @Nullable S3Server s3;
    private @Nullable TcpProxy registry;
    private boolean registryCut;
    private @Nullable PrometheusServer prometheus;
    private int published;

    @AfterEach
    void cleanUp() throws Exception {
        try {
            if (prometheus != null) {
                prometheus.close();
            }
            // the consumer goes first, against a store and a registry that answer
            if (s3 != null) {
                s3.start();
            }
            if (registry != null && registryCut) {
                registry.start();
            }
            lens.stop();
        } finally {
            if (registry != null) {
                registry.close();
            }
            if (s3 != null) {
                s3.close();
            }
            ClaimsRegistry.dropTable(claimsTable);
        }
    }

    @Test
    void theShippedAlertsFireAndResolveAndEveryDashboardExpressionHasData() throws Exception {
        long begin = System.nanoTime();
        S3Server store = S3Server.inTempFolder();
        this.s3 = store;
        byte[] random = new byte[6];
        ThreadLocalRandom.current().nextBytes(random);
        String bucket = "lens-alerts-" + HexFormat.of().formatHex(random);
        store.createBucket(bucket);
        URI postgres = URI.create(ClaimsRegistry.URL.substring("jdbc:".length()));
        TcpProxy claims = new TcpProxy(postgres.getHost(), postgres.getPort()).start();
        this.registry = claims;

        Map<String, Object> props = new LinkedHashMap<>(store.springProperties("s3://" + bucket + "/archive"));
        props.put("lens.archive.max-age", MAX_AGE.toMillis() + "ms");
        props.put("lens.archive.health.max-lag", MAX_LAG.toMillis() + "ms");
        props.put("lens.archive.claims.enabled", "true");
        props.put(
                "lens.archive.claims.url",
                "jdbc:postgresql://127.0.0.1:" + claims.port() + postgres.getRawPath()
                        + (postgres.getRawQuery() == null ? "" : "?" + postgres.getRawQuery()));
        props.put("lens.archive.claims.username", ClaimsRegistry.USER);
        props.put("lens.archive.claims.table", claimsTable);
        props.put("lens.archive.claims.timeout", "2s");
        // Prometheus first, on the port the consumer will take: its first scrape waits for target discovery (5 s)
        int port = freePort();
        PrometheusServer server = PrometheusServer.scraping(JOB, "127.0.0.1:" + port, "/actuator/prometheus")
                .rules(ALERTS, RECORDING)
                .start();
        this.prometheus = server;
        props.put("server.port", port);
        RunningConsumer consumer = lens.start(props);
        await().atMost(ALERT_TIMEOUT)
                .pollInterval(Duration.ofMillis(250))
                .untilAsserted(() -> assertThat(server.query("up{job=\"" + JOB + "\"} == 1"))
                        .as(() -> "the consumer scraped; " + diagnosis())
                        .hasSize(1));
        // the consumer was down while it started
        for (String alert : List.of(
                "LensConsumerDown", "LensArchiveLagHigh", "LensObjectStoreFailing", "LensClaimRegistryFailing")) {
            awaitAlert(alert, STATE_INACTIVE, ALERT_TIMEOUT);
        }
        log(begin, "consumer and Prometheus up");

        // 1. rows wait in open files for MAX_AGE, longer than MAX_LAG
        publishSpans(5, "alerts-lag");
        awaitAlert("LensArchiveLagHigh", STATE_FIRING, ALERT_TIMEOUT);
        log(begin, "LensArchiveLagHigh firing");
        awaitAlert("LensArchiveLagHigh", STATE_INACTIVE, MAX_AGE.plus(ALERT_TIMEOUT));
        assertThat(server.query("lens_archive_store_files_total{job=\"" + JOB + "\"} > 0"))
                .as("files in the bucket when the lag alert resolved")
                .hasSize(1);
        log(begin, "LensArchiveLagHigh resolved");

        // 2. the files of these spans fail to go up
        store.stop();
        publishSpans(5, "alerts-store");
        awaitAlert("LensObjectStoreFailing", STATE_FIRING, MAX_AGE.plus(ALERT_TIMEOUT));
        log(begin, "LensObjectStoreFailing firing");
        store.start();
        awaitAlert("LensObjectStoreFailing", STATE_INACTIVE, ALERT_TIMEOUT);
        log(begin, "LensObjectStoreFailing resolved");

        // 3. the claims of these spans fail (a batch goes to the registry within a second)
        claims.stop();
        registryCut = true;
        publishSpans(5, "alerts-claims");
        awaitAlert("LensClaimRegistryFailing", STATE_FIRING, ALERT_TIMEOUT);
        log(begin, "LensClaimRegistryFailing firing");
        claims.start();
        registryCut = false;
        awaitAlert("LensClaimRegistryFailing", STATE_INACTIVE, ALERT_TIMEOUT);
        log(begin, "LensClaimRegistryFailing resolved");

        // 4. the dashboard shows data in every panel; the faults poisoned nothing
        List<String> expressions = dashboardExpressions();
        assertThat(expressions).as("the expressions of %s", DASHBOARD).isNotEmpty();
        await().atMost(ALERT_TIMEOUT)
                .pollInterval(Duration.ofSeconds(1))
                .untilAsserted(() -> assertThat(withoutData(server, expressions))
                        .as("dashboard expressions (of %d) that return no series, or an error", expressions.size())
                        .isEmpty());
        log(begin, expressions.size() + " dashboard expressions with data");
        await().atMost(ALERT_TIMEOUT).until(() -> consumer.messages("acked") == published);
        assertThat(consumer.messages("poisoned")).as("poisoned").isZero();
        assertThat(consumer.messages("dead-lettered")).as("dead-lettered").isZero();
        assertThat(lens.poisoned()).as("the poison queue").isZero();
        assertThat(server.alertStates())
                .as("alerts active at the end of the faults")
                .doesNotContainKeys("LensMessagesPoisoned", "LensConsumerDown", "LensConsumerNotConsuming");
        assertThat(server.rules())
                .as("rules whose evaluation fails")
                .filteredOn(r -> r.health().equals("err"))
                .isEmpty();

        // 5. the consumer goes away, and comes back (on the same port)
        consumer.close();
        awaitAlert("LensConsumerDown", STATE_FIRING, ALERT_TIMEOUT);
        log(begin, "LensConsumerDown firing");
        lens.start(props);
        awaitAlert("LensConsumerDown", STATE_INACTIVE, ALERT_TIMEOUT);
        log(begin, "LensConsumerDown resolved");
        assertThat(lens.poisoned()).as("the poison queue").isZero();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 0, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** Publishes {@code messages} messages of 20 spans of one run, each of its own content. */
    private void publishSpans(int messages, String run) throws Exception {
        for (int i = 0; i < messages; i++) {
            lens.publish(
                    "otlp_spans", NemoLensRequests.spans(20, run, i, published).toByteArray());
            published++;
        }
    }

    /** Waits until the alerting rule is in this state, or fails saying what Prometheus sees. */
    private void awaitAlert(String alert, String state, Duration timeout) {
        PrometheusServer server = Objects.requireNonNull(prometheus);
        await().atMost(timeout)
                .pollInterval(Duration.ofMillis(250))
                .untilAsserted(() -> assertThat(server.alertState(alert))
                        .as(() -> alert + "; " + diagnosis())
                        .isEqualTo(state));
    }

    /** The active alerts, the alerts' meters as Prometheus has them, its targets, and rules that fail. */
    private String diagnosis() {
        try {
            return whatPrometheusSees(Objects.requireNonNull(prometheus));
        } catch (RuntimeException e) {
            return "Prometheus does not answer: " + e;
        }
    }

    private static String whatPrometheusSees(PrometheusServer server) {
        StringBuilder s = new StringBuilder("active alerts ").append(server.alertStates());
        s.append("; meters:");
        for (PrometheusServer.Sample sample : server.query(METERS_OF_THE_ALERTS)) {
            Map<String, String> labels = new LinkedHashMap<>(sample.labels());
            String name = labels.remove("__name__");
            labels.remove("job");
            labels.remove("instance");
            s.append("\n  ")
                    .append(name)
                    .append(labels.isEmpty() ? "" : labels)
                    .append(' ')
                    .append(sample.value());
        }
        s.append("\ntargets ").append(server.targets());
        server.rules().stream()
                .filter(r -> r.health().equals("err"))
                .forEach(r ->
                        s.append("\nrule ").append(r.name()).append(" fails: ").append(r.lastError()));
        return s.toString();
    }

    /** Every {@code expr} of the dashboard's panels (rows' nested panels included), in order. */
    private static List<String> dashboardExpressions() throws IOException {
        JsonNode dashboard = JsonMapper.builder().build().readTree(DASHBOARD.toFile());
        List<String> expressions = new ArrayList<>();
        collectExpressions(dashboard, expressions);
        return expressions;
    }

    private static void collectExpressions(JsonNode node, List<String> expressions) {
        if (node.isObject() && node.path("expr").isString()) {
            expressions.add(node.path("expr").asString());
        }
        for (JsonNode child : node) {
            collectExpressions(child, expressions);
        }
    }

    /**
     * The expressions that, with the dashboard's variables filled in as Grafana does for job {@code lens-consumer}
     * and all instances, return no series or an error; each with why.
     */
    private static Map<String, String> withoutData(PrometheusServer server, List<String> expressions) {
        Map<String, String> without = new LinkedHashMap<>();
        for (String expression : expressions) {
            String query;
            try {
                query = filledIn(expression);
            } catch (IllegalArgumentException e) {
                without.put(expression, e.getMessage());
                continue;
            }
            try {
                if (server.query(query).isEmpty()) {
                    without.put(expression, "no series");
                }
            } catch (IllegalArgumentException e) {
                without.put(expression, query + ": " + e.getMessage());
            }
        }
        return without;
    }

    /** The expression with Grafana's variables as the dashboard fills them: job, every instance, 1m intervals. */
    private static String filledIn(String expression) {
        Matcher m = VARIABLE.matcher(expression);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1) != null ? m.group(1) : m.group(2);
            String value = switch (name) {
                case "job" -> JOB;
                // the dashboard's "All" (allValue .*), matched with =~
                case "instance" -> ".*";
                case "__rate_interval", "__interval", "__range" -> "1m";
                case "__interval_ms", "__range_ms" -> "60000";
                case "__range_s" -> "60";
                default -> throw new IllegalArgumentException("a variable the test does not know: $" + name);
            };
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static void log(long begin, String what) {
        System.out.printf("%6.1f s  %s%n", (System.nanoTime() - begin) / 1e9, what);
    }
}
