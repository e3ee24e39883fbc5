package io.nemolens.generator;

import io.nemolens.generator.GenerateOptions.Target;
import io.nemolens.generator.TelemetryGenerator.Batch;
import io.nemolens.generator.TelemetryGenerator.Faults;
import io.nemolens.generator.TelemetryGenerator.Kind;
import io.nemolens.handlers.Encoding;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;

/**
 * {@code generate}: emits realistic NeMo Lens telemetry — {@code megatron.train_step} spans with their
 * children, training metrics and logs, dcgm-exporter and node-exporter scrapes — straight to the exchange
 * (publishing as the collector's {@code rabbitmq} exporter does, in protobuf or OTLP/JSON) or to a
 * collector's OTLP/HTTP receiver, at a chosen rate, size and count, then prints what it sent.
 * {@link GenerateOptions#USAGE} lists the options.
 */
public final class GenerateCommand {

    private static final long PROGRESS_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final DateTimeFormatter RUN_ID_TIME =
            DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss", Locale.ROOT).withZone(ZoneOffset.UTC);

    private final Supplier<ConnectionFactory> connections;
    private final String defaultExchange;
    private final Clock clock;

    /**
     * @param connections the broker connection for {@code --target amqp}, asked for only then
     * @param defaultExchange the exchange when {@code --exchange} is not given ({@code lens.topology.exchange})
     * @param clock the clock the run starts at
     */
    public GenerateCommand(Supplier<ConnectionFactory> connections, String defaultExchange, Clock clock) {
        this.connections = Objects.requireNonNull(connections, "connections");
        this.defaultExchange = Objects.requireNonNull(defaultExchange, "defaultExchange");
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    /**
     * Sends what the arguments ask for and prints what was sent.
     *
     * @param args the options ({@link GenerateOptions#USAGE}); Spring properties ({@code --name.with.dots=value}) are skipped
     * @param out where to print what a person reads
     * @return the exit code: 0 all sent and confirmed, 1 something was refused or returned or the broker stayed
     *     away longer than {@code --retry-for}, 2 a usage error
     */
    public int run(List<String> args, PrintStream out) throws Exception {
        if (args.contains("--help") || args.contains("-h")) {
            out.println(GenerateOptions.USAGE);
            return 0;
        }
        Instant start = clock.instant();
        GenerateOptions options;
        TelemetryGenerator generator;
        try {
            options = GenerateOptions.parse(args, defaultRunId(start));
            generator = new TelemetryGenerator(new TelemetryGenerator.Settings(
                    options.kinds(),
                    options.runId(),
                    options.ranks(),
                    options.gpusPerHost(),
                    options.spansPerMessage(),
                    options.logsPerMessage(),
                    options.seed(),
                    start.getEpochSecond() * 1_000_000_000L + start.getNano(),
                    options.faults()));
        } catch (IllegalArgumentException e) {
            out.println("generate: " + e.getMessage());
            out.println(GenerateOptions.USAGE);
            return 2;
        }
        Tally tally = new Tally();
        try (TelemetrySink sink = open(options)) {
            out.printf(
                    Locale.ROOT,
                    "generate: %s messages (%s) of run %s, %d ranks, %s, to %s%n",
                    options.count() == 0 ? "unlimited" : Long.toString(options.count()),
                    String.join(",", options.kinds().stream().map(Kind::label).toList()),
                    options.runId(),
                    options.ranks(),
                    options.encoding() == Encoding.JSON ? "OTLP/JSON" : "OTLP protobuf",
                    sink.describe());
            String stragglers = stragglers(options.faults());
            if (!stragglers.isEmpty()) {
                out.println("stragglers: " + stragglers);
            }
            long began = System.nanoTime();
            try {
                send(options, generator, sink, tally, began, out);
            } catch (AmqpTelemetrySink.GaveUpException e) {
                out.println("generate: " + e.getMessage());
                out.println("generate: " + sink.confirmation() + "; the unconfirmed ones may or may not have arrived");
                return 1;
            }
            long elapsed = System.nanoTime() - began;
            out.println("sent " + tally.line(elapsed));
            for (Kind kind : options.kinds()) {
                out.printf(
                        Locale.ROOT,
                        "  %-7s %8d messages %10d records %12s%n",
                        kind.label(),
                        tally.messages[kind.ordinal()],
                        tally.records[kind.ordinal()],
                        size(tally.bytes[kind.ordinal()]));
            }
            out.println(sink.confirmation());
            String problems = sink.problems();
            if (!problems.isEmpty()) {
                out.println("generate: " + problems);
                return 1;
            }
            return 0;
        }
    }

    /** Sends every batch, then waits until the target confirmed them all. */
    private static void send(
            GenerateOptions options,
            TelemetryGenerator generator,
            TelemetrySink sink,
            Tally tally,
            long began,
            PrintStream out)
            throws Exception {
        long nextProgress = began + PROGRESS_INTERVAL_NANOS;
        for (long i = 0; options.count() == 0 || i < options.count(); i++) {
            Batch batch = generator.next();
            byte[] body = options.encoding() == Encoding.JSON
                    ? CollectorJsonWriter.write(batch.request())
                    : batch.request().toByteArray();
            pace(began, i, options.rate());
            sink.send(batch.signal(), body);
            tally.add(batch.kind(), batch.records(), body.length);
            if (System.nanoTime() >= nextProgress) {
                out.println("  ... " + tally.line(System.nanoTime() - began));
                nextProgress += PROGRESS_INTERVAL_NANOS;
            }
        }
        sink.flush();
    }

    /** The faults in words, {@code ""} for none. */
    static String stragglers(Faults faults) {
        List<String> words = new ArrayList<>();
        Integer slow = faults.slowRank();
        if (slow != null) {
            words.add(String.format(
                    Locale.ROOT,
                    "rank %d %.2fx slower from iteration %d",
                    slow,
                    faults.slowFactor(),
                    faults.slowFrom()));
        }
        Integer throttled = faults.throttledRank();
        if (throttled != null) {
            words.add("GPU " + throttled % 8 + " of " + TrainingRank.hostOf(throttled) + " (rank " + throttled
                    + ") throttles");
        }
        Integer flaky = faults.flakyNetworkRank();
        if (flaky != null) {
            words.add(TrainingRank.hostOf(flaky) + " (rank " + flaky + ") has network errors");
        }
        return String.join("; ", words);
    }

    /** The run id when {@code --run-id} is not given: {@code lens-generate-<UTC start time>}. */
    static String defaultRunId(Instant start) {
        return "lens-generate-" + RUN_ID_TIME.format(start);
    }

    private TelemetrySink open(GenerateOptions options) throws Exception {
        if (options.target() == Target.OTLP_HTTP) {
            return new OtlpHttpTelemetrySink(options.otlpEndpoint(), options.encoding());
        }
        String exchange = options.exchange() != null ? options.exchange() : defaultExchange;
        return new AmqpTelemetrySink(connections.get(), exchange, options.inFlight(), options.retryFor());
    }

    /** Waits until message {@code i} is due at {@code rate} messages per second from {@code began}. */
    private static void pace(long began, long i, double rate) throws InterruptedException {
        if (rate <= 0) {
            return;
        }
        long due = began + (long) (i * 1e9 / rate);
        long wait;
        while ((wait = due - System.nanoTime()) > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
        }
    }

    static String size(long bytes) {
        if (bytes < 1024) {
            return bytes + " B";
        }
        if (bytes < 1024 * 1024) {
            return String.format(Locale.ROOT, "%.1f KiB", bytes / 1024.0);
        }
        return String.format(Locale.ROOT, "%.1f MiB", bytes / (1024.0 * 1024));
    }

    /** Counts of what was sent, per kind. */
    private static final class Tally {

        final long[] messages = new long[Kind.values().length];
        final long[] records = new long[Kind.values().length];
        final long[] bytes = new long[Kind.values().length];

        void add(Kind kind, int recordCount, int byteCount) {
            messages[kind.ordinal()]++;
            records[kind.ordinal()] += recordCount;
            bytes[kind.ordinal()] += byteCount;
        }

        String line(long elapsedNanos) {
            long m = java.util.Arrays.stream(messages).sum();
            long r = java.util.Arrays.stream(records).sum();
            long b = java.util.Arrays.stream(bytes).sum();
            double seconds = Math.max(elapsedNanos, 1) / 1e9;
            return String.format(
                    Locale.ROOT,
                    "%d messages, %d records, %s in %.3f s: %.1f messages/s, %.0f records/s, %s/s",
                    m,
                    r,
                    size(b),
                    seconds,
                    m / seconds,
                    r / seconds,
                    size((long) (b / seconds)));
        }
    }
}
