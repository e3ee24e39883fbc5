package io.nemolens.testing;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.rabbitmq.RabbitMQContainer;

/**
 * The one way tests find a RabbitMQ broker: {@code LENS_TEST_AMQP_URI} if set; else the local broker
 * on 127.0.0.1:5672 (guest/guest) if it answers; else a Testcontainers {@code RabbitMQContainer}
 * where Docker works; else the test fails and says how to provide one. Never skips.
 */
public final class TestBroker {

    private static final String ENV = "LENS_TEST_AMQP_URI";
    private static final String LOCAL_URI = "amqp://guest:guest@127.0.0.1:5672/%2F";
    private static @Nullable TestBroker instance;

    private final URI uri;
    private final String description;
    private final @Nullable RabbitMQContainer container;

    private TestBroker(URI uri, String description, @Nullable RabbitMQContainer container) {
        this.uri = uri;
        this.description = description;
        this.container = container;
    }

    /** The broker for this test run, found once. */
    public static synchronized TestBroker get() {
        if (instance == null) {
            instance = find();
        }
        return instance;
    }

    private static TestBroker find() {
        String fromEnv = System.getenv(ENV);
        if (fromEnv != null && !fromEnv.isBlank()) {
            URI uri = URI.create(fromEnv.trim());
            requireAnswers(uri, "the broker named by " + ENV + " (" + redact(uri) + ") does not answer");
            return new TestBroker(uri, ENV + "=" + redact(uri), null);
        }
        URI local = URI.create(LOCAL_URI);
        if (answers(local)) {
            return new TestBroker(local, "local broker on 127.0.0.1:5672", null);
        }
        boolean docker;
        try {
            docker = DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            docker = false;
        }
        if (docker) {
            RabbitMQContainer container = new RabbitMQContainer("rabbitmq:4.1-management");
            container.start();
            URI uri = URI.create("amqp://" + container.getAdminUsername() + ":" + container.getAdminPassword() + "@"
                    + container.getHost() + ":" + container.getAmqpPort() + "/%2F");
            return new TestBroker(uri, "Testcontainers " + container.getDockerImageName(), container);
        }
        throw new IllegalStateException("No RabbitMQ broker for the integration tests. Provide one of: "
                + ENV + "=amqp://user:password@host:5672/vhost; a broker on 127.0.0.1:5672 with guest/guest "
                + "(e.g. 'rabbitmq-server -detached && rabbitmqctl await_startup'); or a working Docker engine, "
                + "so Testcontainers can start rabbitmq:4.1-management.");
    }

    private static boolean answers(URI uri) {
        try {
            requireAnswers(uri, "no answer");
            return true;
        } catch (IllegalStateException e) {
            return false;
        }
    }

    private static void requireAnswers(URI uri, String message) {
        try {
            Connection probe = factory(uri).newConnection("lens-test-probe");
            probe.close();
        } catch (Exception e) {
            throw new IllegalStateException(message + ": " + e, e);
        }
    }

    private static ConnectionFactory factory(URI uri) {
        ConnectionFactory f = new ConnectionFactory();
        try {
            f.setUri(uri);
        } catch (Exception e) {
            throw new IllegalStateException("bad AMQP URI " + redact(uri), e);
        }
        f.setConnectionTimeout(3000);
        f.setAutomaticRecoveryEnabled(false);
        return f;
    }

    private static String redact(URI uri) {
        return uri.getScheme() + "://" + uri.getHost() + ":" + uri.getPort() + uri.getRawPath();
    }

    /** A plain client connection factory for publishing and inspecting in tests. */
    public ConnectionFactory connectionFactory() {
        return factory(uri);
    }

    /** Opens a new client connection; close it. */
    public Connection connect() throws IOException {
        try {
            return connectionFactory().newConnection("lens-test");
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IOException(e);
        }
    }

    /** The {@code spring.rabbitmq.*} properties that point an app at this broker. */
    public Map<String, Object> springProperties() {
        ConnectionFactory f = connectionFactory();
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("spring.rabbitmq.host", f.getHost());
        props.put("spring.rabbitmq.port", f.getPort());
        props.put("spring.rabbitmq.username", f.getUsername());
        props.put("spring.rabbitmq.password", f.getPassword());
        props.put("spring.rabbitmq.virtual-host", f.getVirtualHost());
        props.put("spring.rabbitmq.ssl.enabled", "amqps".equals(uri.getScheme()));
        return props;
    }

    /** What broker this is, for messages. */
    public String description() {
        return description;
    }

    /**
     * Stops the broker's RabbitMQ application (connections drop, data stays), as {@code rabbitmqctl stop_app}.
     * Works for the local broker and for a container; for a remote one set {@code LENS_TEST_RABBITMQCTL}
     * to a command that reaches it.
     */
    public void stopApp() throws Exception {
        rabbitmqctl("stop_app");
    }

    /** Starts the broker's RabbitMQ application again and waits until it accepts connections. */
    public void startApp() throws Exception {
        rabbitmqctl("start_app");
        rabbitmqctl("await_startup");
    }

    /**
     * Starts an AMQPS (TLS) listener on the running broker with this certificate and key (PEM files
     * readable by the broker), without restarting it: {@code rabbit_networking:start_ssl_listener} through
     * {@code rabbitmqctl eval}. Stop it with {@link #stopTlsListener(int)}.
     *
     * @return the port a client on this host connects to
     */
    public int startTlsListener(java.nio.file.Path certificate, java.nio.file.Path key) throws Exception {
        String cert = certificate.toAbsolutePath().toString();
        String keyFile = key.toAbsolutePath().toString();
        int brokerPort;
        if (container != null) {
            container.copyFileToContainer(
                    org.testcontainers.utility.MountableFile.forHostPath(certificate, 0644), "/tmp/lens-tls-cert.pem");
            container.copyFileToContainer(
                    org.testcontainers.utility.MountableFile.forHostPath(key, 0644), "/tmp/lens-tls-key.pem");
            cert = "/tmp/lens-tls-cert.pem";
            keyFile = "/tmp/lens-tls-key.pem";
            brokerPort = 5671; // RabbitMQContainer maps it
        } else {
            try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
                brokerPort = s.getLocalPort();
            }
        }
        rabbitmqctl(
                "eval",
                "rabbit_networking:ensure_ssl(), rabbit_networking:start_ssl_listener(" + brokerPort
                        + ", [{certfile, \"" + cert + "\"}, {keyfile, \"" + keyFile + "\"}, {verify, verify_none}, "
                        + "{fail_if_no_peer_cert, false}], 1, 1).");
        return container != null ? container.getAmqpsPort() : brokerPort;
    }

    /** Stops a listener that {@link #startTlsListener} started (given the port it returned). */
    public void stopTlsListener(int port) throws Exception {
        rabbitmqctl("eval", "rabbit_networking:stop_tcp_listener(" + (container != null ? 5671 : port) + ").");
    }

    /**
     * Runs {@code rabbitmqctl} with these arguments against the test broker (inside the container for
     * Testcontainers; {@code LENS_TEST_RABBITMQCTL} for a remote broker), e.g. to add a user.
     */
    public void rabbitmqctl(String... command) throws Exception {
        rabbitmqctlOutput(command);
    }

    /**
     * Closes every connection whose client-provided name is {@code connectionName}, as
     * {@code rabbitmqctl close_connection} does (the client sees {@code CONNECTION_FORCED}); the broker
     * keeps running. Only ever for a connection the test itself opened.
     *
     * @return how many connections were closed
     */
    public int closeConnection(String connectionName, String reason) throws Exception {
        // client_properties holds {"connection_name","..."} (3.10 has no user_provided_name column)
        String property = "{\"connection_name\",\"" + connectionName + "\"}";
        int closed = 0;
        for (String line : rabbitmqctlOutput("-q", "list_connections", "pid", "client_properties")
                .split("\\R", -1)) {
            int tab = line.indexOf('\t');
            if (tab > 0 && line.contains(property)) {
                rabbitmqctlOutput("close_connection", line.substring(0, tab).strip(), reason);
                closed++;
            }
        }
        return closed;
    }

    /** Runs {@code rabbitmqctl} as {@link #rabbitmqctl} does and returns what it printed. */
    public String rabbitmqctlOutput(String... command) throws Exception {
        if (container != null) {
            String[] full = new String[command.length + 1];
            full[0] = "rabbitmqctl";
            System.arraycopy(command, 0, full, 1, command.length);
            var result = container.execInContainer(full);
            if (result.getExitCode() != 0) {
                throw new IllegalStateException(
                        "rabbitmqctl " + String.join(" ", command) + " failed: " + result.getStderr());
            }
            return result.getStdout();
        }
        String ctl = System.getenv().getOrDefault("LENS_TEST_RABBITMQCTL", "rabbitmqctl");
        List<String> cmd = new ArrayList<>(List.of(ctl.split(" ")));
        cmd.addAll(List.of(command));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IllegalStateException(
                    "'" + String.join(" ", cmd) + "' failed against " + description + ": " + out);
        }
        return out;
    }
}
