package io.nemolens.consumer.poison;

import com.rabbitmq.client.AMQP;
import io.nemolens.consumer.error.HandlerFailedException;
import io.nemolens.topology.ConfirmedPublisher;
import io.nemolens.topology.PublishException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;

/**
 * Republishes a failed message to the poison queue with headers that say why, and waits for the
 * broker's publisher confirm ({@link ConfirmedPublisher}: {@code mandatory}, so a poison queue that does
 * not exist counts as a failure, not as a silent drop). It publishes through the topology's dead-letter
 * exchange with the poison queue's name as routing key, never through the default exchange, so that a
 * broker user with write permission on its own exchanges only can poison.
 */
public final class PoisonPublisher implements AutoCloseable {

    private final ConfirmedPublisher publisher;
    private final String deadLetterExchange;
    private final String poisonQueue;
    private final int stackTraceMaxLength;
    private final Clock clock;
    private final String host;
    private final @Nullable PoisonRecorder recorder;

    /**
     * @param deadLetterExchange the exchange that routes to the poison queue by its name
     * @param confirmTimeout how long to wait for the broker's confirm of a dead letter
     * @param stackTraceMaxLength the stack trace header is cut to this many characters
     * @param recorder told of every confirmed dead letter (the poison index), or {@code null}
     */
    public PoisonPublisher(
            ConnectionFactory connectionFactory,
            String deadLetterExchange,
            String poisonQueue,
            Duration confirmTimeout,
            int stackTraceMaxLength,
            Clock clock,
            @Nullable PoisonRecorder recorder) {
        this.recorder = recorder;
        this.publisher = new ConfirmedPublisher(connectionFactory, confirmTimeout, 1);
        this.deadLetterExchange = deadLetterExchange;
        this.poisonQueue = poisonQueue;
        this.stackTraceMaxLength = stackTraceMaxLength;
        this.clock = clock;
        this.host = hostName();
    }

    /**
     * Publishes the dead letter and waits for its confirm.
     *
     * @throws PublishException when the broker did not confirm it in time, nacked it, or returned it as
     *     unroutable; the caller then rejects the original to the queue's dead-letter exchange
     */
    public void publish(Message message, DeadLetter deadLetter) {
        AMQP.BasicProperties props = deadLetterProperties(message.getMessageProperties(), deadLetter);
        try {
            publisher.publishAndWait(deadLetterExchange, poisonQueue, props, message.getBody());
            recordPoisoned(props, message.getBody());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PublishException(
                    PublishException.Reason.CLOSED, "interrupted while waiting for the confirm of a dead letter", e);
        }
    }

    /** The dead letter is confirmed: the recorder learns of it (it never throws). */
    private void recordPoisoned(AMQP.BasicProperties props, byte[] body) {
        if (recorder != null) {
            recorder.poisoned(props, body);
        }
    }

    AMQP.BasicProperties deadLetterProperties(MessageProperties received, DeadLetter deadLetter) {
        AMQP.BasicProperties original = OriginalProperties.forCopy(received);
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
        return original.builder().headers(headers).build();
    }

    private static String nullToEmpty(@Nullable String s) {
        return s == null ? "" : s;
    }

    private String stackTrace(Throwable cause) {
        StringWriter sw = new StringWriter();
        cause.printStackTrace(new PrintWriter(sw));
        String trace = sw.toString();
        int max = stackTraceMaxLength;
        return trace.length() <= max ? trace : trace.substring(0, max - 15) + "\n\t...(truncated)";
    }

    @Override
    public void close() {
        publisher.close();
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
