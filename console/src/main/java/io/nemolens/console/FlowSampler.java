package io.nemolens.console;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.nemolens.consumer.scheduling.PeriodicTask;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Samples the counters {@code lens.messages} and {@code lens.records} (the ones {@code /actuator/prometheus}
 * shows) on a timer and keeps the rates per signal for the overview's chart: messages and records per
 * second between two samples, for the last {@code lens.console.chart-window}.
 */
public final class FlowSampler extends PeriodicTask {

    private static final Logger log = LoggerFactory.getLogger(FlowSampler.class);

    /** The signals charted, in order. */
    public static final List<String> SIGNALS = List.of("spans", "metrics", "logs");

    /**
     * One sample.
     *
     * @param epochSecond when
     * @param messages messages per second by signal since the previous sample
     * @param records records per second by signal since the previous sample
     */
    public record Sample(long epochSecond, Map<String, Double> messages, Map<String, Double> records) {}

    private final MeterRegistry registry;
    private final Duration interval;
    private final int capacity;
    private final Clock clock;
    private final Deque<Sample> samples = new ArrayDeque<>();
    private @Nullable Map<String, Double> lastMessages;
    private @Nullable Map<String, Double> lastRecords;
    private long lastNanos;
    private volatile boolean failing;

    public FlowSampler(MeterRegistry registry, Duration interval, int capacity, Clock clock) {
        super("lens-console-sampler", interval);
        this.registry = registry;
        this.interval = interval;
        this.capacity = capacity;
        this.clock = clock;
    }

    /** The samples, oldest first. */
    public synchronized List<Sample> samples() {
        return List.copyOf(samples);
    }

    /** The sampling interval. */
    public Duration interval() {
        return interval;
    }

    /** Takes a sample now. */
    public synchronized void sample() {
        long now = System.nanoTime();
        Map<String, Double> messages = totals("lens.messages");
        Map<String, Double> records = totals("lens.records");
        if (lastMessages != null && lastRecords != null) {
            double seconds = Math.max(1e-3, (now - lastNanos) / 1e9);
            samples.addLast(new Sample(
                    clock.instant().getEpochSecond(),
                    rates(messages, lastMessages, seconds),
                    rates(records, lastRecords, seconds)));
            while (samples.size() > capacity) {
                samples.removeFirst();
            }
        }
        lastMessages = messages;
        lastRecords = records;
        lastNanos = now;
    }

    private Map<String, Double> totals(String meter) {
        Map<String, Double> totals = new LinkedHashMap<>();
        SIGNALS.forEach(s -> totals.put(s, 0.0));
        for (Counter counter : registry.find(meter).counters()) {
            String signal = counter.getId().getTag("signal");
            if (signal != null && totals.containsKey(signal)) {
                totals.merge(signal, counter.count(), Double::sum);
            }
        }
        return totals;
    }

    private static Map<String, Double> rates(Map<String, Double> now, Map<String, Double> before, double seconds) {
        Map<String, Double> rates = new LinkedHashMap<>();
        now.forEach((signal, total) ->
                rates.put(signal, Math.max(0, total - before.getOrDefault(signal, 0.0)) / seconds));
        return rates;
    }

    /**
     * A sample on the timer: a failure is logged and the next sample taken on time (a scheduled task that
     * throws is never run again, which would freeze the chart).
     */
    @Override
    protected void runOnce() {
        try {
            sample();
            failing = false;
        } catch (RuntimeException e) {
            if (!failing) {
                log.warn(
                        "the console's chart missed a sample (the next one is due in {}): {}",
                        interval,
                        e.toString(),
                        e);
            } else {
                log.debug("the console's chart missed another sample", e);
            }
            failing = true;
        }
    }
}
