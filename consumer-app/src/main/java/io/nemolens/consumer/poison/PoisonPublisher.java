package io.nemolens.consumer.poison;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import io.nemolens.consumer.config.LensPoisonProperties;
import io.nemolens.consumer.error.HandlerFailedException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.support.DefaultMessagePropertiesConverter;
import org.springframework.amqp.rabbit.support.MessagePropertiesConverter;

/**
 * Republishes a failed message to the poison queue with headers that say why, and waits for the
 * broker's publisher confirm. The message is published {@code mandatory}: a poison queue that does not
 * exist counts as a failure, not as a silent drop. One dedicated confirm-mode channel, used by one
 * thread at a time.
 */
public final class PoisonPublisher implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PoisonPublisher.class);
    private static final MessagePropertiesConverter CONVERTER = new DefaultMessagePropertiesConverter();

    private final ConnectionFactory connectionFactory;
    private final String poisonQueue;
    private final LensPoisonProperties properties;
    private final Clock clock;
    private final String host;

    private Channel channel;
    private volatile boolean returned;

    public PoisonPublisher(
            ConnectionFactory connectionFactory, String poisonQueue, LensPoisonProperties properties, Clock clock) {
        this.connectionFactory = connectionFactory;
        this.poisonQueue = poisonQueue;
        this.properties = properties;
        this.clock = clock;
        this.host = hostName();
    }

    /**
     * Publishes the dead letter and waits for its confirm.
     *
     * @throws PoisonPublishException when the broker did not confirm it in time, nacked it, or returned
     *     it as unroutable; the caller then rejects the original to the queue's dead-letter exchange
     */
    public synchronized void publish(Message message, DeadLetter deadLetter) {
        AMQP.BasicProperties props = deadLetterProperties(message.getMessageProperties(), deadLetter);
        byte[] body = message.getBody();
        try {
            Channel ch = channel();
            returned = false;
            ch.basicPublish("", poisonQueue, true, props, body);
            ch.waitForConfirmsOrDie(properties.confirmTimeout().toMillis());
            if (returned) {
                throw new PoisonPublishException(
                        "poison queue '" + poisonQueue
                                + "' does not exist: the broker returned the dead letter as unroutable",
                        null);
            }
        } catch (IOException | TimeoutException | RuntimeException e) {
            closeChannel();
            if (e instanceof PoisonPublishException p) {
                throw p;
            }
            throw new PoisonPublishException("dead letter to '" + poisonQueue + "' not confirmed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closeChannel();
            throw new PoisonPublishException("interrupted while waiting for the confirm of a dead letter", e);
        }
    }

    AMQP.BasicProperties deadLetterProperties(MessageProperties received, DeadLetter deadLetter) {
        AMQP.BasicProperties original = CONVERTER.fromMessageProperties(received, "UTF-8");
        Map<String, Object> headers = new HashMap<>();
        if (original.getHeaders() != null) {
            headers.putAll(original.getHeaders());
        }
        Throwable cause = deadLetter.cause();
        String now = clock.instant().toString();
        // a replayed message keeps its first exchange and routing key, and its first failure time
        headers.putIfAbsent(PoisonHeaders.ORIGINAL_EXCHANGE, nullToEmpty(received.getReceivedExchange()));
        headers.putIfAbsent(PoisonHeaders.ORIGINAL_ROUTING_KEY, nullToEmpty(received.getReceivedRoutingKey()));
        headers.putIfAbsent(PoisonHeaders.FIRST_FAILED_AT, now);
        headers.put(PoisonHeaders.FAILED_AT, now);
        headers.put(PoisonHeaders.FAILURE_CATEGORY, deadLetter.category().tag());
        // for a handler failure, name the handler's own exception rather than our wrapper
        Throwable reported =
                cause instanceof HandlerFailedException && cause.getCause() != null ? cause.getCause() : cause;
        headers.put(PoisonHeaders.EXCEPTION_CLASS, reported.getClass().getName());
        headers.put(PoisonHeaders.EXCEPTION_MESSAGE, String.valueOf(cause.getMessage()));
        headers.put(PoisonHeaders.EXCEPTION_STACKTRACE, stackTrace(cause));
        headers.put(PoisonHeaders.CONSUMER_HOST, host);
        headers.put(PoisonHeaders.ATTEMPTS, deadLetter.attempts());
        if (deadLetter.signal() != null) {
            headers.put(PoisonHeaders.SIGNAL, deadLetter.signal().tag());
        } else {
            headers.remove(PoisonHeaders.SIGNAL);
        }
        if (deadLetter.encoding() != null) {
            headers.put(PoisonHeaders.ENCODING, deadLetter.encoding().tag());
        } else {
            headers.remove(PoisonHeaders.ENCODING);
        }
        return original.builder().headers(headers).deliveryMode(2).build();
    }

    private static String nullToEmpty(String s) {
        return s == null ? "" : s;
    }

    private String stackTrace(Throwable cause) {
        StringWriter sw = new StringWriter();
        cause.printStackTrace(new PrintWriter(sw));
        String trace = sw.toString();
        int max = properties.stackTraceMaxLength();
        return trace.length() <= max ? trace : trace.substring(0, max - 15) + "\n\t...(truncated)";
    }

    private Channel channel() throws IOException {
        if (channel == null || !channel.isOpen()) {
            // a raw channel of the shared connection, outside the channel cache: confirm mode and the
            // return listener must not leak into channels that other components borrow
            com.rabbitmq.client.Connection connection =
                    connectionFactory.createConnection().getDelegate();
            Channel ch = connection.createChannel();
            if (ch == null) {
                throw new IOException("the broker connection has no free channel");
            }
            ch.confirmSelect();
            ch.addReturnListener(r -> returned = true);
            channel = ch;
        }
        return channel;
    }

    private void closeChannel() {
        Channel ch = channel;
        channel = null;
        if (ch != null) {
            try {
                if (ch.isOpen()) {
                    ch.close();
                }
            } catch (IOException | TimeoutException | RuntimeException e) {
                log.debug("closing the poison channel failed", e);
            }
        }
    }

    @Override
    public synchronized void close() {
        closeChannel();
    }

    private static String hostName() {
        String env = System.getenv("HOSTNAME");
        if (env != null && !env.isBlank()) {
            return env;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "unknown";
        }
    }
}
