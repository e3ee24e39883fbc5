package io.nemolens.testing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Broker + topology + running consumer for each test, as one JUnit extension: before each test a fresh
 * {@link TestTopology} (named after the test class), a {@link BrokerClient}, and the application started
 * against both; after it, the application closed, the client closed and the topology deleted.
 *
 * <pre>
 * &#64;RegisterExtension
 * final ConsumerExtension lens = ConsumerExtension.of(MyApplication.class)
 *         .with(FailingHandlers.class)
 *         .property("lens.archive.enabled", "false");
 *
 * &#64;Test
 * void poisons() throws Exception {
 *     lens.publish("otlp_spans", body);
 *     await().until(() -&gt; lens.client().messageCount(lens.topology().poisonQueue()) == 1);
 * }
 * </pre>
 *
 * A test that needs its own properties per test method calls {@link #manualStart()} at registration and
 * {@link #start(Map)} itself; the extension still closes what it started.
 */
public final class ConsumerExtension implements BeforeEachCallback, AfterEachCallback {

    private final Class<?> application;
    private final List<Class<?>> configuration = new ArrayList<>();
    private final Map<String, Object> properties = new LinkedHashMap<>();
    private boolean startEach = true;

    private @Nullable TestTopology topology;
    private @Nullable BrokerClient client;
    private final List<RunningConsumer> started = new ArrayList<>();

    private ConsumerExtension(Class<?> application) {
        this.application = application;
    }

    /** The application to start: its class, as a user's {@code @SpringBootApplication}. */
    public static ConsumerExtension of(Class<?> application) {
        return new ConsumerExtension(application);
    }

    /** Configuration classes (a test's handlers) started with the application. */
    public ConsumerExtension with(Class<?>... classes) {
        configuration.addAll(List.of(classes));
        return this;
    }

    /** A property of every start; a property given to {@link #start(Map)} wins. */
    public ConsumerExtension property(String name, Object value) {
        properties.put(name, value);
        return this;
    }

    /** Properties of every start. */
    public ConsumerExtension properties(Map<String, ?> values) {
        properties.putAll(values);
        return this;
    }

    /** Makes topology and client before each test, but starts no application: the test calls {@link #start}. */
    public ConsumerExtension manualStart() {
        startEach = false;
        return this;
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        topology = TestTopology.unique(
                context.getRequiredTestClass().getSimpleName().replaceAll("(IT|Tests?)$", ""));
        client = new BrokerClient();
        if (startEach) {
            start(Map.of());
        }
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        try {
            for (int i = started.size() - 1; i >= 0; i--) {
                started.get(i).close();
            }
        } finally {
            started.clear();
            if (client != null) {
                client.close();
                client = null;
            }
            if (topology != null) {
                topology.delete();
                topology = null;
            }
        }
    }

    /**
     * Starts the application (again, or once more beside the first) with the registered properties and
     * these on top; closed after the test.
     */
    public RunningConsumer start(Map<String, ?> extra) {
        Map<String, Object> props = new LinkedHashMap<>(properties);
        props.putAll(extra);
        Class<?>[] sources = new Class<?>[configuration.size() + 1];
        sources[0] = application;
        for (int i = 0; i < configuration.size(); i++) {
            sources[i + 1] = configuration.get(i);
        }
        RunningConsumer consumer = RunningConsumer.start(topology(), props, sources);
        started.add(consumer);
        return consumer;
    }

    /** The application started last in this test. */
    public RunningConsumer consumer() {
        if (started.isEmpty()) {
            throw new IllegalStateException("no application started in this test");
        }
        return started.get(started.size() - 1);
    }

    /** This test's exchange and queue names. */
    public TestTopology topology() {
        if (topology == null) {
            throw new IllegalStateException("only inside a test");
        }
        return topology;
    }

    /** This test's broker client. */
    public BrokerClient client() {
        if (client == null) {
            throw new IllegalStateException("only inside a test");
        }
        return client;
    }

    /** A bean of the application started last. */
    public <T> T bean(Class<T> type) {
        return consumer().bean(type);
    }

    /** Publishes to this test's exchange as the collector does (persistent, confirmed, no content type). */
    public void publish(String routingKey, byte[] body) throws Exception {
        client().publish(topology().exchange(), routingKey, body);
    }

    /** Ready messages in this test's processing queue. */
    public long queued() throws Exception {
        return client().messageCount(topology().queue());
    }

    /** Ready messages in this test's poison queue. */
    public long poisoned() throws Exception {
        return client().messageCount(topology().poisonQueue());
    }
}
