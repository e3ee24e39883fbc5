package io.nemolens.generator;

import com.google.protobuf.Message;
import io.nemolens.handlers.Signal;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * An endless stream of NeMo Lens telemetry batches, one OTLP export request each, as a collector would
 * publish them for a training run: the selected {@link Kind}s take turns; training kinds cycle through
 * the ranks, scrape kinds through the hosts (eight ranks per host). Each rank and host keeps its own
 * clock and counters, so a stream reads like one run. {@link Faults} make a straggler: a slow rank, a GPU
 * that throttles, a host with network errors. Deterministic for a seed and faults. Not thread-safe.
 */
public final class TelemetryGenerator {

    /** Scrape interval of the simulated Prometheus receiver. */
    public static final long SCRAPE_INTERVAL_NANOS = 15_000_000_000L;

    /** What one batch holds. */
    public enum Kind {
        /** {@code megatron.train_step} spans with their children. */
        SPANS(Signal.SPANS),
        /** Megatron training metrics of one rank. */
        METRICS(Signal.METRICS),
        /** Megatron training log records of one rank. */
        LOGS(Signal.LOGS),
        /** One dcgm-exporter scrape of one host, as the prometheus receiver turns it into OTLP. */
        GPU(Signal.METRICS),
        /** One node-exporter scrape of one host, as the prometheus receiver turns it into OTLP. */
        NODE(Signal.METRICS);

        private final Signal signal;

        Kind(Signal signal) {
            this.signal = signal;
        }

        /** The OTLP signal, which decides the routing key. */
        public Signal signal() {
            return signal;
        }

        /** Lower-case name, as on the command line. */
        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * One generated batch.
     *
     * @param kind what it holds
     * @param request the OTLP export request
     * @param records its spans, metric data points or log records
     */
    public record Batch(Kind kind, Message request, int records) {

        /** The OTLP signal of the request. */
        public Signal signal() {
            return kind.signal();
        }
    }

    /**
     * What to generate.
     *
     * @param kinds the kinds that take turns, at least one
     * @param runId the run id
     * @param ranks the number of ranks, at least 1
     * @param gpusPerHost GPUs per host in dcgm-exporter scrapes, 1 to 64
     * @param spansPerMessage spans per {@link Kind#SPANS} batch, at least 1
     * @param logsPerMessage log records per {@link Kind#LOGS} batch, at least 1
     * @param seed the random seed
     * @param startNanos the time of the first step and scrape, nanoseconds since the epoch
     * @param faults the faults, {@link Faults#NONE} for a healthy run; their ranks must be among {@code ranks},
     *     and the throttled rank's GPU ({@code rank % 8}) among {@code gpusPerHost}
     */
    public record Settings(
            List<Kind> kinds,
            String runId,
            int ranks,
            int gpusPerHost,
            int spansPerMessage,
            int logsPerMessage,
            long seed,
            long startNanos,
            Faults faults) {

        public Settings {
            kinds = List.copyOf(kinds);
            if (kinds.isEmpty()) {
                throw new IllegalArgumentException("need at least one kind of telemetry");
            }
            if (runId == null || runId.isBlank()) {
                throw new IllegalArgumentException("run id must not be blank");
            }
            requireAtLeast("ranks", ranks, 1);
            requireAtLeast("spans per message", spansPerMessage, 1);
            requireAtLeast("logs per message", logsPerMessage, 1);
            if (gpusPerHost < 1 || gpusPerHost > 64) {
                throw new IllegalArgumentException("GPUs per host must be 1 to 64, got " + gpusPerHost);
            }
            if (faults == null) {
                throw new IllegalArgumentException("faults must not be null (Faults.NONE for none)");
            }
            requireRank("slow rank", faults.slowRank(), ranks);
            requireRank("throttled rank", faults.throttledRank(), ranks);
            requireRank("flaky network rank", faults.flakyNetworkRank(), ranks);
            Integer throttled = faults.throttledRank();
            if (throttled != null && throttled % 8 >= gpusPerHost) {
                throw new IllegalArgumentException("throttled rank " + throttled + " runs on GPU " + throttled % 8
                        + ", but there are " + gpusPerHost + " GPUs per host");
            }
        }

        /** A healthy run: settings without faults. */
        public Settings(
                List<Kind> kinds,
                String runId,
                int ranks,
                int gpusPerHost,
                int spansPerMessage,
                int logsPerMessage,
                long seed,
                long startNanos) {
            this(kinds, runId, ranks, gpusPerHost, spansPerMessage, logsPerMessage, seed, startNanos, Faults.NONE);
        }

        private static void requireRank(String what, @Nullable Integer rank, int ranks) {
            if (rank != null && rank >= ranks) {
                throw new IllegalArgumentException(
                        what + " must be one of the ranks 0 to " + (ranks - 1) + ", got " + rank);
            }
        }

        private static void requireAtLeast(String what, int value, int min) {
            if (value < min) {
                throw new IllegalArgumentException(what + " must be at least " + min + ", got " + value);
            }
        }
    }

    /**
     * Faults that make a straggler, for a service that looks for one. Each is off when its rank is
     * {@code null}; {@link #NONE} has none.
     *
     * @param slowRank the global rank whose {@code megatron.forward_backward} and {@code megatron.optimizer_step}
     *     (so its {@code megatron.train_step}, its step-duration histogram and its log lines) take
     *     {@code slowFactor} times longer from iteration {@code slowFrom} on, its clock advancing accordingly
     * @param slowFactor how much longer the slow rank's steps take, above 1
     * @param slowFrom the slow rank's first slow iteration, at least 1 (a run's first iteration is 1)
     * @param throttledRank the rank whose GPU (host {@link TrainingRank#hostOf}, GPU {@code rank % 8}) throttles in
     *     every dcgm-exporter scrape: SM clock 1005 to 1095 MHz instead of 1410, 87 to 92 C, 250 to 300 W, clock
     *     throttle reasons HW and SW thermal slowdown. With it, every GPU of every scrape reports
     *     {@link InfraRequests#DCGM_CLOCK_THROTTLE_REASONS} (0 when healthy), as if the exporter were told to
     *     collect it
     * @param flakyNetworkRank the rank whose host has network errors in every node-exporter scrape:
     *     {@code node_netstat_Tcp_RetransSegs} grows by 300 to 600 (instead of 0 to 19), and on each InfiniBand
     *     port {@code node_infiniband_port_errors_received_total} by 5 to 20 and
     *     {@code node_infiniband_symbol_error_total} by 1 to 5
     */
    public record Faults(
            @Nullable Integer slowRank,
            double slowFactor,
            long slowFrom,
            @Nullable Integer throttledRank,
            @Nullable Integer flakyNetworkRank) {

        /** The slow rank's factor unless told otherwise. */
        public static final double DEFAULT_SLOW_FACTOR = 1.3;

        /** The slow rank's first slow iteration unless told otherwise. */
        public static final long DEFAULT_SLOW_FROM = 50;

        /** No faults: a healthy run. */
        public static final Faults NONE = new Faults(null, DEFAULT_SLOW_FACTOR, DEFAULT_SLOW_FROM, null, null);

        public Faults {
            if (!(slowFactor > 1) || Double.isInfinite(slowFactor)) {
                throw new IllegalArgumentException("slow factor must be a number above 1, got " + slowFactor);
            }
            if (slowFrom < 1) {
                throw new IllegalArgumentException("slow-from iteration must be at least 1, got " + slowFrom);
            }
            requireNotNegative("slow rank", slowRank);
            requireNotNegative("throttled rank", throttledRank);
            requireNotNegative("flaky network rank", flakyNetworkRank);
        }

        private static void requireNotNegative(String what, @Nullable Integer rank) {
            if (rank != null && rank < 0) {
                throw new IllegalArgumentException(what + " must be at least 0, got " + rank);
            }
        }
    }

    private final Settings settings;
    private final List<TrainingRank> ranks = new ArrayList<>();
    private final List<HostState> hosts = new ArrayList<>();
    private final int[] nextSource;
    private long produced;

    /** A generator for these settings. */
    public TelemetryGenerator(Settings settings) {
        this.settings = settings;
        Faults faults = settings.faults();
        Integer slowRank = faults.slowRank();
        for (int r = 0; r < settings.ranks(); r++) {
            boolean slow = slowRank != null && slowRank == r;
            ranks.add(new TrainingRank(
                    settings.runId(),
                    r,
                    settings.ranks(),
                    settings.seed() * 1_000_003L + r,
                    1,
                    settings.startNanos(),
                    slow ? faults.slowFactor() : 1.0,
                    slow ? faults.slowFrom() : Long.MAX_VALUE));
        }
        for (int h = 0; h < (settings.ranks() + 7) / 8; h++) {
            hosts.add(new HostState(h, settings));
        }
        this.nextSource = new int[Kind.values().length];
    }

    /** The next batch. */
    public Batch next() {
        Kind kind = settings.kinds().get((int) (produced++ % settings.kinds().size()));
        int sources = (kind == Kind.GPU || kind == Kind.NODE) ? hosts.size() : ranks.size();
        int source = nextSource[kind.ordinal()];
        nextSource[kind.ordinal()] = (source + 1) % sources;
        return switch (kind) {
            case SPANS ->
                new Batch(kind, ranks.get(source).spans(settings.spansPerMessage()), settings.spansPerMessage());
            case LOGS -> new Batch(kind, ranks.get(source).logs(settings.logsPerMessage()), settings.logsPerMessage());
            case METRICS -> metrics(kind, ranks.get(source).metrics());
            case GPU -> metrics(kind, hosts.get(source).dcgmScrape());
            case NODE -> metrics(kind, hosts.get(source).nodeScrape());
        };
    }

    private static Batch metrics(Kind kind, ExportMetricsServiceRequest request) {
        return new Batch(kind, request, InfraRequests.dataPoints(request));
    }
}
