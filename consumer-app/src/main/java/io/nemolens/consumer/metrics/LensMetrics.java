package io.nemolens.consumer.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.nemolens.handlers.Encoding;
import io.nemolens.handlers.Signal;
import java.util.concurrent.TimeUnit;

/**
 * The consumer's meters. All tags are low-cardinality: {@code signal} (spans, metrics, logs,
 * unknown), {@code encoding} (protobuf, json, unknown), {@code outcome}, {@code kind}, {@code type}.
 *
 * <ul>
 *   <li>{@code lens.messages}: messages by signal, encoding and outcome ({@code acked}, {@code poisoned},
 *       {@code dead-lettered} when the poison republish failed and the broker dead-lettered it,
 *       {@code requeued} when left for redelivery)</li>
 *   <li>{@code lens.records}: records handed to handlers, by signal and kind</li>
 *   <li>{@code lens.retries}: handler retries by signal and type ({@code handler}, {@code transient})</li>
 *   <li>{@code lens.message.bytes}: body bytes received, by signal</li>
 *   <li>{@code lens.decode.duration}, {@code lens.handle.duration}: latency per message, by signal</li>
 * </ul>
 */
public final class LensMetrics {

    /** What became of a message. */
    public enum Outcome {
        ACKED("acked"), POISONED("poisoned"), DEAD_LETTERED("dead-lettered"), REQUEUED("requeued");

        private final String tag;

        Outcome(String tag) {
            this.tag = tag;
        }

        public String tag() {
            return tag;
        }
    }

    private final MeterRegistry registry;

    public LensMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    public void message(Signal signal, Encoding encoding, Outcome outcome) {
        Counter.builder("lens.messages")
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

    public void bytes(Signal signal, int bytes) {
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
        timer("lens.handle.duration", "time for every handler to finish one message", signal).record(nanos, TimeUnit.NANOSECONDS);
    }

    private Timer timer(String name, String description, Signal signal) {
        return Timer.builder(name).description(description).tag("signal", signalTag(signal)).register(registry);
    }

    private static String signalTag(Signal signal) {
        return signal == null ? "unknown" : signal.tag();
    }
}
