package io.nemolens.consumer.listener;

import com.rabbitmq.client.Channel;
import io.nemolens.consumer.dispatch.BatchDispatcher;
import io.nemolens.consumer.error.HandlerFailedException;
import io.nemolens.consumer.error.MessageTooLargeException;
import io.nemolens.consumer.error.OutOfMemoryHalt;
import io.nemolens.consumer.error.UnknownSignalException;
import io.nemolens.consumer.metrics.LensMetrics;
import io.nemolens.consumer.metrics.LensMetrics.Outcome;
import io.nemolens.consumer.poison.DeadLetter;
import io.nemolens.consumer.poison.PoisonPublisher;
import io.nemolens.decode.DecodeException;
import io.nemolens.decode.DecodedMessage;
import io.nemolens.decode.MessageIds;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.handlers.Encoding;
import io.nemolens.handlers.LensException;
import io.nemolens.handlers.MessageInfo;
import io.nemolens.handlers.ReceivedMessage;
import io.nemolens.handlers.RecordKind;
import io.nemolens.handlers.Records;
import io.nemolens.handlers.RejectBatchException;
import io.nemolens.handlers.Signal;
import io.nemolens.topology.PublishException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.listener.api.ChannelAwareMessageListener;

/**
 * Takes one message from the processing queue to one acknowledgement decision: acknowledged once
 * every handler has succeeded; republished to the poison queue (confirmed, then acknowledged) when it
 * cannot be processed; rejected to the queue's dead-letter exchange if that republish fails; or
 * requeued when the consumer stops during a transient failure. It never throws for bad input.
 */
public final class LensMessageListener implements ChannelAwareMessageListener {

    private static final Logger log = LoggerFactory.getLogger(LensMessageListener.class);

    private final OtlpDecoder decoder;
    private final BatchDispatcher dispatcher;
    private final PoisonPublisher poison;
    private final LensMetrics metrics;
    private final long maxMessageSize;
    private final Clock clock;
    private final AckSender acks;
    private final AtomicReference<@Nullable Instant> lastProcessed = new AtomicReference<>();

    public LensMessageListener(
            OtlpDecoder decoder,
            BatchDispatcher dispatcher,
            PoisonPublisher poison,
            LensMetrics metrics,
            long maxMessageSize,
            Clock clock,
            AckSender acks) {
        this.decoder = decoder;
        this.dispatcher = dispatcher;
        this.poison = poison;
        this.metrics = metrics;
        this.maxMessageSize = maxMessageSize;
        this.clock = clock;
        this.acks = acks;
    }

    /** When a message was last acknowledged after its handlers succeeded, or {@code null} if never. */
    public @Nullable Instant lastProcessed() {
        return lastProcessed.get();
    }

    @Override
    public void onMessage(Message message, @Nullable Channel channel) {
        Instant receivedAt = clock.instant();
        long receivedNanos = System.nanoTime();
        MessageProperties props = message.getMessageProperties();
        DeliveryAcknowledgement delivery = new DeliveryAcknowledgement(
                acks,
                Objects.requireNonNull(channel, "the container's channel (manual acknowledgement)"),
                props.getDeliveryTag());
        String routingKey = props.getReceivedRoutingKey() == null ? "" : props.getReceivedRoutingKey();
        byte[] body = message.getBody();
        Signal signal = Signal.forRoutingKey(routingKey);
        metrics.bytes(signal, body.length);

        if (signal == null) {
            deadLetter(message, delivery, new UnknownSignalException(routingKey), null, null, 0);
            return;
        }
        if (body.length > maxMessageSize) {
            deadLetter(message, delivery, new MessageTooLargeException(body.length, maxMessageSize), signal, null, 0);
            return;
        }

        DecodedMessage decoded;
        long start = System.nanoTime();
        try {
            decoded = decoder.decode(signal, body, props.getContentType());
        } catch (DecodeException e) {
            deadLetter(message, delivery, e, signal, e.encoding(), 0);
            return;
        } catch (RuntimeException | StackOverflowError e) {
            OutOfMemoryHalt.haltIfOutOfMemory(e, "the decoder");
            // a decoder bug, or input that breaks it: the message can't be read, so it is poisoned
            // (and can be replayed once the decoder is fixed)
            DecodeException wrapped = new DecodeException("decoder failed unexpectedly: " + e, null, e);
            deadLetter(message, delivery, wrapped, signal, null, 0);
            return;
        }
        metrics.decodeTime(signal, System.nanoTime() - start);

        MessageInfo info = new MessageInfo(
                MessageIds.of(body),
                signal,
                decoded.encoding(),
                props.getReceivedExchange() == null ? "" : props.getReceivedExchange(),
                routingKey,
                body.length,
                Boolean.TRUE.equals(props.isRedelivered()),
                decoded.source());
        ReceivedMessage received = new ReceivedMessage(info, body, receivedAt, decoded.records());
        long handleStart = System.nanoTime();
        LensException failure = dispatcher.dispatch(received, delivery);
        metrics.handleTime(signal, System.nanoTime() - handleStart);

        if (failure == null) {
            acknowledgeWhenDurable(message, delivery, Handled.of(decoded, receivedNanos), info.messageId());
        } else if (failure.category().isPermanent()) {
            int attempts = failure instanceof HandlerFailedException h ? h.attempts() : 0;
            deadLetter(message, delivery, failure, signal, decoded.encoding(), attempts);
        } else {
            log.info("message {} left for redelivery: {}", info.messageId(), failure.getMessage());
            if (delivery.requeue()) {
                metrics.message(signal, decoded.encoding(), Outcome.REQUEUED);
            }
        }
    }

    /**
     * Acknowledges a message whose handlers all succeeded: at once, or, when a buffering handler or a sink
     * handed over a stage, once every stage has completed, on the thread of the last one. A failed stage decides
     * by its exception: a permanent {@link LensException} poisons the message, anything else returns it to the
     * queue. Until then only {@code handled}, a small summary, and the AMQP message (its body, for a dead letter;
     * bounded like every unacknowledged body by the in-flight budget) stay reachable, not the decoded request and
     * its records.
     */
    private void acknowledgeWhenDurable(
            Message message, DeliveryAcknowledgement delivery, Handled handled, String messageId) {
        delivery.whenDurable(failure -> {
            try {
                decideWhenDurable(message, delivery, handled, messageId, failure);
            } catch (Throwable e) {
                // the completing thread is a handler's or the archive's: say it, or halt on out of memory
                OutOfMemoryHalt.haltIfOutOfMemory(e, "the acknowledgement of a message");
                log.error(
                        "acknowledging message {} failed; it stays unacknowledged until its channel closes",
                        messageId,
                        e);
            }
        });
    }

    private void decideWhenDurable(
            Message message,
            DeliveryAcknowledgement delivery,
            Handled handled,
            String messageId,
            @Nullable Throwable failure) {
        if (failure instanceof LensException refused && refused.category().isPermanent()) {
            LensException reason =
                    refused instanceof RejectBatchException ? HandlerFailedException.rejected(refused, 1) : refused;
            delivery.quietly(
                    () -> deadLetter(message, delivery, reason, handled.signal(), handled.encoding(), 1), "poison");
        } else if (failure == null) {
            if (delivery.ack()) {
                acknowledged(handled);
            }
        } else {
            log.warn("message {} was not made durable ({}); returning it to the queue", messageId, failure.toString());
            if (delivery.requeue()) {
                metrics.message(handled.signal(), handled.encoding(), Outcome.REQUEUED);
            }
        }
    }

    private void acknowledged(Handled handled) {
        metrics.ackLatency(handled.signal(), System.nanoTime() - handled.receivedNanos());
        Instant now = clock.instant();
        lastProcessed.set(now);
        metrics.processingLag(handled.signal(), handled.lag(now));
        metrics.message(handled.signal(), handled.encoding(), Outcome.ACKED);
        for (RecordKind<?> kind : RecordKind.all()) {
            metrics.records(handled.signal(), kind.tag(), handled.counts()[kind.index()]);
        }
        metrics.staleSkipped(handled.signal(), handled.staleSkipped());
    }

    /**
     * What the acknowledgement needs to know of a handled message: small, so that messages waiting for
     * a buffering handler do not keep their decoded request and records alive (measured: they made the
     * garbage collector copy megabytes per waiting message).
     *
     * @param receivedNanos {@link System#nanoTime()} when the listener received the message
     * @param newestTimeUnixNano the newest record time of the message, or 0 when no record has a time
     * @param counts how many records of each {@link RecordKind}, by its index
     */
    record Handled(
            Signal signal,
            Encoding encoding,
            long receivedNanos,
            long newestTimeUnixNano,
            int[] counts,
            int staleSkipped) {

        static Handled of(DecodedMessage decoded, long receivedNanos) {
            Records records = decoded.records();
            int[] counts = new int[RecordKind.all().size()];
            for (RecordKind<?> kind : RecordKind.all()) {
                counts[kind.index()] = records.count(kind);
            }
            return new Handled(
                    decoded.signal(),
                    decoded.encoding(),
                    receivedNanos,
                    records.newestTimeUnixNano(),
                    counts,
                    decoded.staleSkipped());
        }

        /** Now minus the newest record time, or {@code null} when no record has a time. */
        @Nullable
        Duration lag(Instant now) {
            if (newestTimeUnixNano <= 0) {
                return null;
            }
            Instant newestTime = Instant.ofEpochSecond(0, newestTimeUnixNano);
            return newestTime.isAfter(now) ? Duration.ZERO : Duration.between(newestTime, now);
        }
    }

    private void deadLetter(
            Message message,
            DeliveryAcknowledgement delivery,
            LensException failure,
            @Nullable Signal signal,
            @Nullable Encoding encoding,
            int attempts) {
        log.warn(
                "poisoning message (routing key '{}', {} bytes): {}: {}",
                message.getMessageProperties().getReceivedRoutingKey(),
                message.getBody().length,
                failure.category().tag(),
                failure.getMessage());
        try {
            poison.publish(message, new DeadLetter(failure.category(), failure, signal, encoding, attempts));
        } catch (PublishException e) {
            log.error(
                    "dead letter was not confirmed ({}); rejecting the message to the queue's dead-letter exchange instead",
                    e.getMessage());
            if (delivery.reject()) {
                metrics.message(signal, encoding, Outcome.DEAD_LETTERED);
            }
            return;
        }
        // the dead letter is confirmed: the original goes, even if a buffering handler still holds rows of it
        if (delivery.ack()) {
            metrics.message(signal, encoding, Outcome.POISONED);
        }
    }
}
