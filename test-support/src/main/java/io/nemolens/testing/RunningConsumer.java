package io.nemolens.testing;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** The consumer application started in this JVM against the test broker, with a test's own topology. */
public final class RunningConsumer implements AutoCloseable {

    /** A management user for tests that read health details, which only an authenticated caller sees. */
    public static final String OPERATOR = "operator";

    public static final String OPERATOR_PASSWORD = "it-"
            + Long.toHexString(java.util.concurrent.ThreadLocalRandom.current().nextLong());

    private final ConfigurableApplicationContext context;

    private RunningConsumer(ConfigurableApplicationContext context) {
        this.context = context;
    }

    /**
     * Starts an application made of exactly these sources (the application class first, then a test's own
     * configuration classes: handlers) with these properties; no other test class is scanned. Web server on
     * a random port; broker from {@link TestBroker}; topology names from {@code topology}; the archive in
     * {@link TestTopology#archive()}, its files committed 1 s after they are opened, unless the properties say
     * otherwise.
     */
    public static RunningConsumer start(TestTopology topology, Map<String, Object> properties, Class<?>... sources) {
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("lens.archive.path", topology.archive().toString());
        // files are committed this soon after they are opened, so that a test reads its records back quickly
        props.put("lens.archive.max-age", "1s");
        props.putAll(properties);
        String[] args = topology.applicationArguments(props);
        ConfigurableApplicationContext ctx = new SpringApplicationBuilder(sources)
                .initializers(c ->
                        c.getBeanFactory().registerSingleton("onlyGivenTestClasses", new OnlyGivenTestClasses(sources)))
                .run(args);
        return new RunningConsumer(ctx);
    }

    public ConfigurableApplicationContext context() {
        return context;
    }

    public <T> T bean(Class<T> type) {
        return context.getBean(type);
    }

    /** How many messages ended with this {@code lens.messages} outcome ({@code acked}, {@code poisoned}, ...), all signals. */
    public double messages(String outcome) {
        return bean(io.micrometer.core.instrument.MeterRegistry.class)
                .find("lens.messages")
                .tag("outcome", outcome)
                .counters()
                .stream()
                .mapToDouble(c -> c.count())
                .sum();
    }

    /**
     * Waits until every message the archive took is in committed files: its spool holds no entry whose
     * rows are not all committed, no file is open and none is being written again (the archive's gauges
     * {@code lens.archive.spool.entries}, {@code lens.archive.open.files}, {@code lens.archive.rewriting});
     * files are committed by age: {@code max-age} is 1 s here unless the test says otherwise.
     */
    public void awaitArchived(java.time.Duration timeout) {
        org.awaitility.Awaitility.await()
                .atMost(timeout)
                .until(() -> gauge("lens.archive.spool.entries") == 0
                        && gauge("lens.archive.open.files") == 0
                        && gauge("lens.archive.rewriting") == 0);
    }

    /** The value of a gauge; fails when the application has none of that name. */
    public double gauge(String name) {
        return bean(io.micrometer.core.instrument.MeterRegistry.class)
                .get(name)
                .gauge()
                .value();
    }

    /** The port of the HTTP server (actuator). */
    public int port() {
        return Integer.parseInt(context.getEnvironment().getProperty("local.server.port", "-1"));
    }

    /** The port of the management server where it has one of its own ({@code management.server.port}), else -1. */
    public int managementPort() {
        return Integer.parseInt(context.getEnvironment().getProperty("local.management.port", "-1"));
    }

    @Override
    public void close() {
        context.close();
    }

    /** {@code properties} with the {@link #OPERATOR} user added ({@code spring.security.user.*}). */
    public static Map<String, Object> withOperator(Map<String, Object> properties) {
        Map<String, Object> props = new LinkedHashMap<>(properties);
        props.put("spring.security.user.name", OPERATOR);
        props.put("spring.security.user.password", OPERATOR_PASSWORD);
        return props;
    }

    /** The {@code Authorization} header value of the {@link #OPERATOR} user (HTTP Basic). */
    public static String operatorAuthorization() {
        return "Basic "
                + java.util.Base64.getEncoder()
                        .encodeToString(
                                (OPERATOR + ":" + OPERATOR_PASSWORD).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
}
