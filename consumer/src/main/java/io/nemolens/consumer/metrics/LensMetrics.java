package io.nemolens.consumer.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.nemolens.handlers.Encoding;
import io.nemolens.handlers.Signal;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;

/**
 * The consumer's meters. All tags are low-cardinality: {@code signal} (spans, metrics, logs,
 * unknown), {@code encoding} (protobuf, json, unknown), {@code outcome}, {@code kind}, {@code type}.
 *
 * <ul>
 *   <li>{@code lens.messages}: messages by signal, encoding and outcome ({@code acked}, {@code poisoned},
 *       {@code dead-lettered} when the poison republish failed and the broker dead-lettered it,
 *       {@code requeued} when left for redelivery)</li>
 *   <li>{@code lens.records}: records handed to handlers, by signal and kind</li>
 *   <li>{@code lens.stale.skipped}: staleness markers of GPU and node metrics skipped (never records), by signal</li>
 *   <li>{@code lens.retries}: handler retries by signal and type ({@code handler}, {@code transient})</li>
 *   <li>{@code lens.message.bytes}: body bytes received, by signal</li>
 *   <li>{@code lens.decode.duration}, {@code lens.handle.duration}: latency per message, by signal</li>
 *   <li>{@code lens.ack.latency}: time from the listener's receipt of a message to the decision to acknowledge
 *       it, for acknowledged messages, by signal (with the archive: decoding, handlers, and the wait until the
 *       message is durable in the spool); the frame follows from the acknowledgement sender's thread</li>
 *   <li>{@code lens.ack.frames}: acknowledgement frames sent to the broker, by {@code type} ({@code ack},
 *       {@code requeue}, {@code reject}); {@code lens.ack.settled}: the deliveries they settled, by type. Under
 *       load one {@code ack} frame settles many messages (a {@code multiple} acknowledgement of a channel's
 *       longest prefix of decided deliveries)</li>
 *   <li>{@code lens.processing.lag}: seconds from the newest record time of the last acknowledged message
 *       to its acknowledgement, by signal</li>
 *   <li>{@code lens.poison.replays}: poison messages by replay result ({@code replayed}, {@code skipped},
 *       {@code parked}, {@code failed})</li>
 *   <li>{@code lens.queue.depth} (the poison tooling's {@code QueueDepthMonitor}): ready messages by
 *       {@code queue} role ({@code processing}, {@code poison}, {@code parking-lot})</li>
 * </ul>
 */
public final class LensMetrics {

    /** {@code lens.messages}: messages by signal, encoding and outcome. */
    public static final String MESSAGES = "lens.messages";

    /** What became of a message. */
    public enum Outcome {
        ACKED("acked"),
        POISONED("poisoned"),
        DEAD_LETTERED("dead-lettered"),
        REQUEUED("requeued");

        private final String tag;

        Outcome(String tag) {
            this.tag = tag;
        }

        public String tag() {
            return tag;
        }
    }

    private final MeterRegistry registry;
    private final Map<String, AtomicLong> lagMillis = new ConcurrentHashMap<>();

    public LensMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    /**
     * Records how far behind the consumer is: the time from the newest record of an acknowledged
     * message to now. Ignored when the message carried no record time ({@code lag} is {@code null}).
     */
    public void processingLag(Signal signal, @Nullable Duration lag) {
        if (lag == null) {
            return;
        }
        lagMillis
                .computeIfAbsent(signalTag(signal), tag -> {
                    AtomicLong holder = new AtomicLong();
                    Gauge.builder("lens.processing.lag", holder, h -> h.get() / 1000.0)
                            .description("now minus the newest record time of the last acknowledged message")
                            .baseUnit("seconds")
                            .tag("signal", tag)
                            .register(registry);
                    return holder;
                })
                .set(lag.toMillis());
    }

    /** Counts poison messages by what a replay did with them. */
    public void replays(String result, int count) {
        Counter counter = Counter.builder("lens.poison.replays")
                .description("poison messages examined by replays, by result")
                .tag("result", result)
                .register(registry);
        if (count > 0) {
            counter.increment(count);
        }
    }

    /** Counts a message by what became of it; a {@code null} signal or encoding is tagged {@code unknown}. */
    public void message(@Nullable Signal signal, @Nullable Encoding encoding, Outcome outcome) {
        Counter.builder(MESSAGES)
                .description("AMQP messages consumed, by what became of them")
                .tag("signal", signalTag(signal))
                .tag("encoding", encoding == null ? "unknown" : encoding.tag())
                .tag("outcome", outcome.tag())
                .register(registry)
                .increment();
    }

    public void records(Signal signal, String kind, int count) {
        if (count == 0) {
            return;
        }
        Counter.builder("lens.records")
                .description("decoded records handed to handlers")
                .tag("signal", signalTag(signal))
                .tag("kind", kind)
                .register(registry)
                .increment(count);
    }

    /** Staleness markers of GPU and node metrics that were skipped instead of becoming samples. */
    public void staleSkipped(Signal signal, int count) {
        if (count == 0) {
            return;
        }
        Counter.builder("lens.stale.skipped")
                .description("staleness markers of GPU and node metrics skipped (no value, never recorded)")
                .tag("signal", signalTag(signal))
                .register(registry)
                .increment(count);
    }

    /** Counts body bytes; a {@code null} signal (the routing key named none) is tagged {@code unknown}. */
    public void bytes(@Nullable Signal signal, int bytes) {
        Counter.builder("lens.message.bytes")
                .baseUnit("bytes")
                .description("message body bytes received")
                .tag("signal", signalTag(signal))
                .register(registry)
                .increment(bytes);
    }

    public void handlerRetry(Signal signal) {
        retry(signal, "handler");
    }

    public void transientRetry(Signal signal) {
        retry(signal, "transient");
    }

    private void retry(Signal signal, String type) {
        Counter.builder("lens.retries")
                .description("handler calls retried, by kind of failure")
                .tag("signal", signalTag(signal))
                .tag("type", type)
                .register(registry)
                .increment();
    }

    public void decodeTime(Signal signal, long nanos) {
        timer("lens.decode.duration", "time to decode one message", signal).record(nanos, TimeUnit.NANOSECONDS);
    }

    public void handleTime(Signal signal, long nanos) {
        timer("lens.handle.duration", "time for every handler to finish one message", signal)
                .record(nanos, TimeUnit.NANOSECONDS);
    }

    /** One acknowledgement frame of {@code type} sent, settling {@code messages} deliveries. */
    public void ackFrame(String type, int messages) {
        Counter.builder("lens.ack.frames")
                .description("acknowledgement frames sent to the broker")
                .tag("type", type)
                .register(registry)
                .increment();
        Counter.builder("lens.ack.settled")
                .description("deliveries settled by acknowledgement frames")
                .tag("type", type)
                .register(registry)
                .increment(messages);
    }

    /**
     * Records the time from the listener's receipt of a message to the decision to acknowledge it (the
     * {@code basic.ack} follows from the acknowledgement sender). Not the time it waited in the client's prefetch
     * buffer before that, nor poisoned messages.
     */
    public void ackLatency(Signal signal, long nanos) {
        timer(
                        "lens.ack.latency",
                        "time from the listener's receipt of a message to its acknowledgement (acked messages)",
                        signal)
                .record(nanos, TimeUnit.NANOSECONDS);
    }

    private Timer timer(String name, String description, Signal signal) {
        return Timer.builder(name)
                .description(description)
                .tag("signal", signalTag(signal))
                .register(registry);
    }

    private static String signalTag(@Nullable Signal signal) {
        return signal == null ? "unknown" : signal.tag();
    }
}
