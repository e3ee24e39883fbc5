package io.nemolens.generator;

import io.nemolens.generator.InfraRequests.DcgmGpu;
import io.nemolens.generator.InfraRequests.InfinibandInfo;
import io.nemolens.generator.InfraRequests.InfinibandPort;
import io.nemolens.generator.InfraRequests.NetworkDevice;
import io.nemolens.generator.InfraRequests.ScrapeStats;
import io.nemolens.generator.TelemetryGenerator.Faults;
import io.nemolens.generator.TelemetryGenerator.Settings;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * One host's exporters, as {@link TelemetryGenerator} scrapes them: GPUs and their energy counters,
 * InfiniBand and network counters, scrape clocks. The host's faults (a GPU that throttles, a flaky network)
 * draw from a random of their own, so a host's other values are those it has without them.
 */
final class HostState {

    private static final String[] DGX_A100_PCI_BUS = {"07", "0F", "47", "4E", "87", "90", "B7", "BD"};
    private static final int SM_CLOCK = InfraRequests.DCGM_GAUGES.indexOf("DCGM_FI_DEV_SM_CLOCK");
    private static final int GPU_TEMP = InfraRequests.DCGM_GAUGES.indexOf("DCGM_FI_DEV_GPU_TEMP");
    private static final int PORT_ERRORS =
            InfraRequests.INFINIBAND_COUNTERS.indexOf("node_infiniband_port_errors_received_total");
    private static final int SYMBOL_ERRORS =
            InfraRequests.INFINIBAND_COUNTERS.indexOf("node_infiniband_symbol_error_total");
    private static final double THERMAL_SLOWDOWN =
            InfraRequests.THROTTLE_HW_THERMAL_SLOWDOWN | InfraRequests.THROTTLE_SW_THERMAL_SLOWDOWN;

    private final String host;
    private final SplittableRandom random;
    private final String[] uuids;
    private final double[] energyMillijoules;
    private final double[][] ibCounters = new double[2][InfraRequests.INFINIBAND_COUNTERS.size()];
    private double receiveBytes;
    private double retransSegs;
    private long dcgmClock;
    private long nodeClock;

    private final SplittableRandom faultRandom;
    /** Whether the GPUs report their clock throttle reasons (any GPU of the run throttles). */
    private final boolean throttleReasons;
    /** The index of this host's GPU that throttles, or -1. */
    private final int throttledGpu;

    private final boolean flakyNetwork;

    /**
     * Host {@code index} of a run: the one ranks {@code 8 * index} to {@code 8 * index + 7} run on.
     *
     * @param index the host's index, from 0
     * @param settings the run's settings, for the seed, the start, the GPUs per host and the faults
     */
    HostState(int index, Settings settings) {
        this.host = TrainingRank.hostOf(index * 8);
        this.random = new SplittableRandom(settings.seed() * 7_919L + index);
        int gpus = settings.gpusPerHost();
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
        this.dcgmClock = settings.startNanos();
        this.nodeClock = settings.startNanos();
        this.receiveBytes = 1e11;

        Faults faults = settings.faults();
        this.faultRandom = new SplittableRandom((settings.seed() * 7_919L + index) ^ 0x6661756c7473L);
        Integer throttled = faults.throttledRank();
        this.throttleReasons = throttled != null;
        this.throttledGpu = throttled != null && throttled / 8 == index ? throttled % 8 : -1;
        Integer flaky = faults.flakyNetworkRank();
        this.flakyNetwork = flaky != null && flaky / 8 == index;
    }

    ExportMetricsServiceRequest dcgmScrape() {
        List<DcgmGpu> gpus = new ArrayList<>(uuids.length);
        for (int g = 0; g < uuids.length; g++) {
            boolean throttled = g == throttledGpu;
            double power = 280 + random.nextDouble() * 120;
            if (throttled) {
                power = 250 + faultRandom.nextDouble() * 50;
            }
            energyMillijoules[g] += power * 1000 * (TelemetryGenerator.SCRAPE_INTERVAL_NANOS / 1e9);
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
            if (throttled) {
                // hot and clocked down, in the A100's 15 MHz steps
                gauges[SM_CLOCK] = 1005 + 15 * faultRandom.nextInt(7);
                gauges[GPU_TEMP] = 87 + faultRandom.nextInt(6);
            }
            String bus =
                    g < DGX_A100_PCI_BUS.length ? DGX_A100_PCI_BUS[g] : String.format(Locale.ROOT, "%02X", 0xC0 + g);
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
                    0,
                    throttleReasons ? (throttled ? THERMAL_SLOWDOWN : 0) : Double.NaN));
        }
        int samples = gpus.size() * (InfraRequests.DCGM_GAUGES.size() + 3 + (throttleReasons ? 1 : 0));
        long t = dcgmClock;
        dcgmClock += TelemetryGenerator.SCRAPE_INTERVAL_NANOS;
        return InfraRequests.dcgmScrape(
                host, t, gpus, new ScrapeStats(0.01 + random.nextDouble() * 0.02, samples, samples, 0));
    }

    ExportMetricsServiceRequest nodeScrape() {
        double seconds = TelemetryGenerator.SCRAPE_INTERVAL_NANOS / 1e9;
        List<InfinibandPort> ports = new ArrayList<>(2);
        for (int hca = 0; hca < 2; hca++) {
            double[] c = ibCounters[hca];
            double bytes = (1.8e10 + random.nextDouble() * 4e9) * seconds;
            c[0] += bytes;
            c[1] += bytes * (0.98 + random.nextDouble() * 0.04);
            c[2] += bytes / 4096;
            int errors = random.nextInt(50) == 0 ? 1 : 0;
            if (flakyNetwork) {
                errors = 5 + faultRandom.nextInt(16);
                c[SYMBOL_ERRORS] += 1 + faultRandom.nextInt(5);
            }
            c[PORT_ERRORS] += errors;
            ports.add(new InfinibandPort(
                    "mlx5_" + hca, "1", c, 2.5e10, new InfinibandInfo("MT_0000000223", "28.39.1002", "MT4123")));
        }
        receiveBytes += (2e7 + random.nextDouble() * 1e7) * seconds;
        int retransmits = random.nextInt(20);
        if (flakyNetwork) {
            retransmits = 300 + faultRandom.nextInt(301);
        }
        retransSegs += retransmits;
        List<NetworkDevice> devices = List.of(new NetworkDevice("eth0", receiveBytes, 1));
        int samples = ports.size() * (InfraRequests.INFINIBAND_COUNTERS.size() + 2) + 1 + 2 * devices.size();
        long t = nodeClock;
        nodeClock += TelemetryGenerator.SCRAPE_INTERVAL_NANOS;
        return InfraRequests.nodeExporterScrape(
                host,
                t,
                ports,
                retransSegs,
                devices,
                new ScrapeStats(0.15 + random.nextDouble() * 0.1, samples, samples, 0));
    }
}
