package io.nemolens.testing;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
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
 *     await().until(() -&gt; lens.poisoned() == 1);
 * }
 * </pre>
 *
 * <ul>
 *   <li>A test that needs its own properties calls {@link #manualStart()} at registration and {@link
 *       #start(Map)} itself (after making what the start needs: a broker user, a proxy, a file in the
 *       archive folder); {@link #start(Map)} again starts a second instance beside the first, or the
 *       application again after the test closed the first (a restart); {@link #startThrough} starts it
 *       behind a {@link TcpProxy}, so that the test can take the broker away from it.
 *   <li>{@link #startProcess} starts the service's executable jar as a child JVM ({@link ConsumerProcess})
 *       against the same topology, killed after the test if it still runs.
 *   <li>Registered in a {@code static} field, it does all this once for the whole class instead: one
 *       topology, client and application for every test of the class.
 * </ul>
 *
 * Whatever the extension started, it closes.
 */
public final class ConsumerExtension
        implements BeforeAllCallback, AfterAllCallback, BeforeEachCallback, AfterEachCallback {

    private final Class<?> application;
    private final List<Class<?>> configuration = new ArrayList<>();
    private final Map<String, Object> properties = new LinkedHashMap<>();
    private final List<Path> processClassPath = new ArrayList<>();
    private boolean startEach = true;
    private boolean perClass;

    private @Nullable TestTopology topology;
    private @Nullable BrokerClient client;
    private final List<RunningConsumer> started = new ArrayList<>();
    private final List<ConsumerProcess> processes = new ArrayList<>();

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

    /**
     * Jars or folders on the class path of every child JVM {@link #startProcess} starts, after the service's own:
     * what a test adds from test scope (a fault that halts the process at a crash point), never in the shipped jar.
     */
    public ConsumerExtension processClassPath(Path... entries) {
        processClassPath.addAll(List.of(entries));
        return this;
    }

    /** Makes topology and client before each test, but starts no application: the test calls {@link #start}. */
    public ConsumerExtension manualStart() {
        startEach = false;
        return this;
    }

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        perClass = true;
        setUp(context);
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        tearDown();
    }

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        if (!perClass) {
            setUp(context);
        }
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        if (!perClass) {
            tearDown();
        }
    }

    private void setUp(ExtensionContext context) throws Exception {
        topology = TestTopology.unique(
                context.getRequiredTestClass().getSimpleName().replaceAll("(IT|Tests?)$", ""));
        client = new BrokerClient();
        if (startEach) {
            start(Map.of());
        }
    }

    private void tearDown() throws Exception {
        try {
            stop();
        } finally {
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
     * these on top; closed after the test. A second instance at the same time needs an archive folder of its
     * own ({@code lens.archive.path}): an archive's spool has one owner.
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

    /**
     * Starts the application as {@link #start(Map)} does, reaching the broker through {@code proxy}, so that the
     * test can take the broker away from it and give it back.
     */
    public RunningConsumer startThrough(TcpProxy proxy, Map<String, ?> extra) {
        Map<String, Object> props = new LinkedHashMap<>(proxy.springProperties());
        props.putAll(extra);
        return start(props);
    }

    /**
     * Starts the service's executable jar in a child JVM ({@link ConsumerProcess}) against this test's topology,
     * its archive in {@link #archive()}, with the registered properties and these on top; its output goes to
     * {@code log}. Killed after the test if it still runs.
     *
     * @param launcher what the {@code java} command line runs under (e.g. {@code unshare ...}); may be empty
     * @param jvmOptions options of the child JVM, such as {@code -Xmx256m}
     */
    public ConsumerProcess startProcess(Path log, List<String> launcher, List<String> jvmOptions, Map<String, ?> extra)
            throws IOException {
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("lens.archive.path", archive());
        props.putAll(properties);
        props.putAll(extra);
        ConsumerProcess process = ConsumerProcess.start(topology(), log, launcher, jvmOptions, processClassPath, props);
        processes.add(process);
        return process;
    }

    /** {@link #startProcess(Path, List, List, Map)} with no launcher. */
    public ConsumerProcess startProcess(Path log, List<String> jvmOptions, Map<String, ?> extra) throws IOException {
        return startProcess(log, List.of(), jvmOptions, extra);
    }

    /**
     * Closes the applications and child processes started so far, latest first: for a test whose own
     * clean-up ({@code @AfterEach}, which runs before the extension's) needs them gone first.
     */
    public void stop() {
        try {
            processes.forEach(ConsumerProcess::close);
            for (int i = started.size() - 1; i >= 0; i--) {
                started.get(i).close();
            }
        } finally {
            processes.clear();
            started.clear();
        }
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

    /**
     * This test's archive folder ({@link TestTopology#archive()}): where every start points
     * {@code lens.archive.path} unless its properties say otherwise.
     */
    public Path archive() {
        return topology().archive();
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

    /** Consumers of this test's processing queue (0 while it does not exist): a child JVM takes a while. */
    public int consumers() throws IOException {
        return client().consumerCount(topology().queue());
    }

    /** Ready messages in this test's poison queue. */
    public long poisoned() throws Exception {
        return client().messageCount(topology().poisonQueue());
    }
}
