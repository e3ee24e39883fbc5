package io.nemolens.topology;

import static org.assertj.core.api.Assertions.fail;

import java.net.URI;
import org.springframework.amqp.AmqpException;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;

/**
 * The RabbitMQ broker integration tests use: {@code LENS_TEST_AMQP_URI} if set, else
 * {@code amqp://guest:guest@127.0.0.1:5672/} if it answers; otherwise the test fails and says
 * how to provide one.
 */
final class TestBroker {

    static final String URI_VARIABLE = "LENS_TEST_AMQP_URI";

    private static final String LOCAL_URI = "amqp://guest:guest@127.0.0.1:5672"; // no path: vhost "/"

    private TestBroker() {}

    /**
     * @return a connection factory whose broker has answered; destroy it after use
     */
    static CachingConnectionFactory connectionFactory() {
        String configured = System.getenv(URI_VARIABLE);
        String uri = (configured != null && !configured.isBlank()) ? configured : LOCAL_URI;
        CachingConnectionFactory connectionFactory = new CachingConnectionFactory(URI.create(uri));
        connectionFactory.getRabbitConnectionFactory().setConnectionTimeout(5_000);
        try {
            connectionFactory.createConnection().close();
        } catch (AmqpException ex) {
            connectionFactory.destroy();
            String where = (configured != null && !configured.isBlank())
                    ? "the broker in " + URI_VARIABLE + " (" + redact(uri) + ") did not answer"
                    : URI_VARIABLE + " is not set and no broker answered at " + redact(uri);
            fail(
                    "These integration tests need a RabbitMQ broker (3.10 or later, for quorum queues), but " + where
                            + ": " + rootCause(ex).replaceFirst("\\.*$", "")
                            + ". Start RabbitMQ on 127.0.0.1:5672 with user guest/guest, or set "
                            + URI_VARIABLE
                            + "=amqp://USER:PASSWORD@HOST:5672 (vhost \"/\"; another vhost as a URL-encoded path, "
                            + "e.g. amqp://USER:PASSWORD@HOST:5672/lens; the user needs configure, write and "
                            + "read permissions on the vhost).",
                    ex);
        }
        return connectionFactory;
    }

    private static String rootCause(Throwable ex) {
        Throwable root = ex;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.toString();
    }

    private static String redact(String uri) {
        return uri.replaceFirst("//([^:@/]*):[^@/]*@", "//$1:***@");
    }
}
