package io.nemolens.poison;

import com.rabbitmq.client.AMQP;
import io.nemolens.consumer.poison.PoisonHeaders;
import io.nemolens.consumer.poison.PoisonRecorder;
import io.nemolens.decode.DecodedMessage;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.handlers.Signal;
import io.nemolens.topology.ConfirmedPublisher;
import io.nemolens.topology.PublishException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * Appends records to the poison index stream ({@link IndexRecord}), each published persistent and
 * confirmed through the topology's dead-letter exchange (routing key: the stream's name). The index is
 * a view: a record that cannot be appended is logged and lost, never a reason to fail what it describes
 * (the message it would have described then counts as unindexed until a re-index reads it). Thread-safe.
 */
public final class PoisonIndexWriter implements PoisonRecorder, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PoisonIndexWriter.class);
    static final JsonMapper JSON = JsonMapper.builder().build();
    private static final int MAX_RUN_IDS = 5;
    private static final Set<String> DECODABLE = Set.of("handler", "handler-rejected");

    private final ConfirmedPublisher publisher;
    private final String deadLetterExchange;
    private final String stream;
    private final int maxBodyBytes;
    private final @Nullable OtlpDecoder decoder;
    private final Clock clock;

    /**
     * @param deadLetterExchange the exchange that routes to the stream by its name
     * @param stream the poison index stream's name
     * @param maxBodyBytes keep at most this many bytes of a body in its record
     * @param decoder reads the run ids of messages that decode, or {@code null} for none
     */
    public PoisonIndexWriter(
            ConnectionFactory connectionFactory,
            String deadLetterExchange,
            String stream,
            Duration confirmTimeout,
            int maxBodyBytes,
            @Nullable OtlpDecoder decoder,
            Clock clock) {
        this.publisher = new ConfirmedPublisher(connectionFactory, confirmTimeout, 1);
        this.deadLetterExchange = deadLetterExchange;
        this.stream = stream;
        this.maxBodyBytes = maxBodyBytes;
        this.decoder = decoder;
        this.clock = clock;
    }

    /** The stream's name. */
    public String stream() {
        return stream;
    }

    /** Records that a message is in the poison queue, with these (its dead-letter) properties. */
    @Override
    public void poisoned(AMQP.BasicProperties props, byte[] body) {
        PoisonMessage message = PoisonMessage.of(0, props, body);
        append(new IndexRecord(
                IndexRecord.POISONED, now(), message.key(), describe(message, props, body), null, null, null));
    }

    /** Records that a message left the poison queue. */
    public void removed(String key, Disposition disposition, String by) {
        removed(key, disposition.done(), by);
    }

    void removed(String key, String disposition, String by) {
        append(new IndexRecord(
                IndexRecord.REMOVED, now(), key, null, new IndexRecord.Removed(disposition, by), null, null));
    }

    /** Records an operator's run over the poison queue. */
    public void action(String by, String action, String scope, ReplaySummary summary) {
        action(by, action, scope, summary.line());
    }

    void action(String by, String action, String scope, String summary) {
        append(new IndexRecord(
                IndexRecord.ACTION, now(), null, null, null, new IndexRecord.Action(by, action, scope, summary), null));
    }

    /** Appends an instance's hello; unlike the others, throws when it is not confirmed. */
    void hello(String instance) throws InterruptedException {
        publish(new IndexRecord(IndexRecord.HELLO, now(), null, null, null, null, instance));
    }

    private void append(IndexRecord record) {
        try {
            publish(record);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            log.warn("poison index record not appended (interrupted): {} {}", record.type(), record.key());
        } catch (PublishException e) {
            log.warn(
                    "poison index record not appended to '{}' ({}): {} {}",
                    stream,
                    e.getMessage(),
                    record.type(),
                    record.key());
        }
    }

    private void publish(IndexRecord record) throws InterruptedException {
        byte[] json = JSON.writeValueAsBytes(record);
        AMQP.BasicProperties props = new AMQP.BasicProperties.Builder()
                .deliveryMode(2)
                .contentType("application/json")
                .type(record.type())
                .build();
        publisher.publishAndWait(deadLetterExchange, stream, props, json);
    }

    private IndexRecord.Poisoned describe(PoisonMessage message, AMQP.BasicProperties props, byte[] body) {
        Map<String, String> headers = new TreeMap<>();
        String stackTrace = "";
        if (props.getHeaders() != null) {
            for (Map.Entry<String, Object> h : props.getHeaders().entrySet()) {
                if (h.getKey().equals(PoisonHeaders.EXCEPTION_STACKTRACE)) {
                    stackTrace = PoisonMessage.text(h.getValue());
                } else {
                    headers.put(h.getKey(), PoisonMessage.text(h.getValue()));
                }
            }
        }
        String signal = headers.get(PoisonHeaders.SIGNAL);
        if (signal == null) {
            Signal s = Signal.forRoutingKey(message.routingKey());
            signal = s == null ? null : s.tag();
        }
        boolean truncated = body.length > maxBodyBytes;
        byte[] kept = truncated ? Arrays.copyOf(body, maxBodyBytes) : body;
        return new IndexRecord.Poisoned(
                message.messageId(),
                message.exchange(),
                message.routingKey(),
                message.category(),
                message.reason(),
                message.exceptionClass(),
                signal,
                headers.get(PoisonHeaders.ENCODING),
                message.firstFailedAt() == null ? null : message.firstFailedAt().toString(),
                message.lastFailedAt() == null ? null : message.lastFailedAt().toString(),
                message.replayCount(),
                message.size(),
                props.getContentType(),
                runIds(message, props, body),
                headers,
                stackTrace,
                Base64.getEncoder().encodeToString(kept),
                truncated);
    }

    /** The run ids of a message whose handlers failed (it decoded once, so it decodes again). */
    private List<String> runIds(PoisonMessage message, AMQP.BasicProperties props, byte[] body) {
        Signal signal = Signal.forRoutingKey(message.routingKey());
        if (decoder == null || signal == null || !DECODABLE.contains(message.category())) {
            return List.of();
        }
        try {
            DecodedMessage decoded = decoder.decode(signal, body, props.getContentType());
            return decoded.records().runIds().stream()
                    .filter(id -> !id.isEmpty())
                    .limit(MAX_RUN_IDS)
                    .toList();
        } catch (RuntimeException e) {
            log.debug("poison index: run ids of {} unknown: {}", message.messageId(), e.toString());
            return List.of();
        }
    }

    private String now() {
        return clock.instant().toString();
    }

    /** Reads a record appended by any instance. */
    static IndexRecord read(byte[] json) {
        return JSON.readValue(new String(json, StandardCharsets.UTF_8), IndexRecord.class);
    }

    @Override
    public void close() {
        publisher.close();
    }
}
