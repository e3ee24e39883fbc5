package io.nemolens.generator;

import com.google.protobuf.Message;
import io.nemolens.generator.InfraRequests.DcgmGpu;
import io.nemolens.generator.InfraRequests.InfinibandInfo;
import io.nemolens.generator.InfraRequests.InfinibandPort;
import io.nemolens.generator.InfraRequests.NetworkDevice;
import io.nemolens.generator.InfraRequests.ScrapeStats;
import io.nemolens.handlers.Signal;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * An endless stream of NeMo Lens telemetry batches, one OTLP export request each, as a collector would
 * publish them for a training run: the selected {@link Kind}s take turns; training kinds cycle through
 * the ranks, scrape kinds through the hosts (eight ranks per host). Each rank and host keeps its own
 * clock and counters, so a stream reads like one run. Deterministic for a seed. Not thread-safe.
 */
public final class TelemetryGenerator {

    /** Scrape interval of the simulated Prometheus receiver. */
    public static final long SCRAPE_INTERVAL_NANOS = 15_000_000_000L;

    private static final String[] DGX_A100_PCI_BUS = {"07", "0F", "47", "4E", "87", "90", "B7", "BD"};

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
     */
    public record Settings(
            List<Kind> kinds,
            String runId,
            int ranks,
            int gpusPerHost,
            int spansPerMessage,
            int logsPerMessage,
            long seed,
            long startNanos) {

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
        }

        private static void requireAtLeast(String what, int value, int min) {
            if (value < min) {
                throw new IllegalArgumentException(what + " must be at least " + min + ", got " + value);
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
        for (int r = 0; r < settings.ranks(); r++) {
            ranks.add(new TrainingRank(
                    settings.runId(), r, settings.ranks(), settings.seed() * 1_000_003L + r, 1, settings.startNanos()));
        }
        for (int h = 0; h < (settings.ranks() + 7) / 8; h++) {
            hosts.add(new HostState(
                    TrainingRank.hostOf(h * 8),
                    settings.gpusPerHost(),
                    new SplittableRandom(settings.seed() * 7_919L + h),
                    settings.startNanos()));
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

    /** One host's exporters: GPUs and their energy counters, InfiniBand and network counters, scrape clocks. */
    private static final class HostState {

        private final String host;
        private final SplittableRandom random;
        private final String[] uuids;
        private final double[] energyMillijoules;
        private final double[][] ibCounters = new double[2][InfraRequests.INFINIBAND_COUNTERS.size()];
        private double receiveBytes;
        private double retransSegs;
        private long dcgmClock;
        private long nodeClock;

        HostState(String host, int gpus, SplittableRandom random, long startNanos) {
            this.host = host;
            this.random = random;
            this.uuids = new String[gpus];
            for (int g = 0; g < gpus; g++) {
                uuids[g] = String.format(
                        Locale.ROOT,
                        "GPU-%08x-%04x-%04x-%04x-%012x",
                        random.nextInt() & 0xffffffffL,
                        random.nextInt(0x10000),
                        random.nextInt(0x10000),
                        random.nextInt(0x10000),
                        random.nextLong() & 0xffffffffffffL);
            }
            this.energyMillijoules = new double[gpus];
            for (int g = 0; g < gpus; g++) {
                energyMillijoules[g] = 5e9 + random.nextDouble() * 1e9;
            }
            this.dcgmClock = startNanos;
            this.nodeClock = startNanos;
            this.receiveBytes = 1e11;
        }

        ExportMetricsServiceRequest dcgmScrape() {
            List<DcgmGpu> gpus = new ArrayList<>(uuids.length);
            for (int g = 0; g < uuids.length; g++) {
                double power = 280 + random.nextDouble() * 120;
                energyMillijoules[g] += power * 1000 * (SCRAPE_INTERVAL_NANOS / 1e9);
                double fbUsed = 76_000 + random.nextInt(3_000);
                double[] gauges = {
                    1410,
                    1593,
                    40 + random.nextInt(10),
                    55 + random.nextInt(15),
                    power,
                    90 + random.nextInt(11),
                    30 + random.nextInt(15),
                    0,
                    0,
                    0,
                    81_559 - fbUsed - 512,
                    fbUsed,
                    512,
                    0.9 + random.nextDouble() * 0.09,
                    0.5 + random.nextDouble() * 0.2,
                    0.4 + random.nextDouble() * 0.2,
                    1e9 + random.nextDouble() * 4e8
                };
                String bus = g < DGX_A100_PCI_BUS.length
                        ? DGX_A100_PCI_BUS[g]
                        : String.format(Locale.ROOT, "%02X", 0xC0 + g);
                gpus.add(new DcgmGpu(
                        Integer.toString(g),
                        uuids[g],
                        "00000000:" + bus + ":00.0",
                        "nvidia" + g,
                        "NVIDIA A100-SXM4-80GB",
                        host,
                        "550.54.15",
                        gauges,
                        8e8 + random.nextDouble() * 3e8,
                        energyMillijoules[g],
                        0));
            }
            int samples = gpus.size() * (InfraRequests.DCGM_GAUGES.size() + 3);
            long t = dcgmClock;
            dcgmClock += SCRAPE_INTERVAL_NANOS;
            return InfraRequests.dcgmScrape(
                    host, t, gpus, new ScrapeStats(0.01 + random.nextDouble() * 0.02, samples, samples, 0));
        }

        ExportMetricsServiceRequest nodeScrape() {
            double seconds = SCRAPE_INTERVAL_NANOS / 1e9;
            List<InfinibandPort> ports = new ArrayList<>(2);
            for (int hca = 0; hca < 2; hca++) {
                double[] c = ibCounters[hca];
                double bytes = (1.8e10 + random.nextDouble() * 4e9) * seconds;
                c[0] += bytes;
                c[1] += bytes * (0.98 + random.nextDouble() * 0.04);
                c[2] += bytes / 4096;
                c[4] += random.nextInt(50) == 0 ? 1 : 0;
                ports.add(new InfinibandPort(
                        "mlx5_" + hca, "1", c, 2.5e10, new InfinibandInfo("MT_0000000223", "28.39.1002", "MT4123")));
            }
            receiveBytes += (2e7 + random.nextDouble() * 1e7) * seconds;
            retransSegs += random.nextInt(20);
            List<NetworkDevice> devices = List.of(new NetworkDevice("eth0", receiveBytes, 1));
            int samples = ports.size() * (InfraRequests.INFINIBAND_COUNTERS.size() + 2) + 1 + 2 * devices.size();
            long t = nodeClock;
            nodeClock += SCRAPE_INTERVAL_NANOS;
            return InfraRequests.nodeExporterScrape(
                    host,
                    t,
                    ports,
                    retransSegs,
                    devices,
                    new ScrapeStats(0.15 + random.nextDouble() * 0.1, samples, samples, 0));
        }
    }
}
