package io.nemolens.benchmarks;

import io.nemolens.handlers.record.AnyValue;
import io.nemolens.handlers.record.Attributes;
import io.nemolens.handlers.record.GpuSample;
import io.nemolens.handlers.record.MetricInfo;
import io.nemolens.handlers.record.MetricPoint;
import io.nemolens.handlers.record.MetricType;
import io.nemolens.handlers.record.NodeSample;
import io.nemolens.handlers.record.NumberValue;
import io.nemolens.handlers.record.ResourceInfo;
import io.nemolens.handlers.record.Span;
import io.nemolens.runwatch.RunWatch;
import io.nemolens.runwatch.RunWatchSettings;
import io.nemolens.runwatch.StepPhase;
import java.lang.management.ManagementFactory;
import java.lang.ref.Reference;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.jspecify.annotations.Nullable;

/**
 * Issue 47's memory bound of the run watch, in a JVM of its own: the heap the watch holds once {@code --ranks}
 * ranks (default 1,000) of one run filled a window of {@code --window} iterations (default 200) with all three
 * step spans, and their hosts (eight GPUs each) sent every DCGM field the watch keeps, against
 * {@link RunWatchSettings#maxBytes()} for those settings (and two node-exporter scrapes of each host); and how long one judgement of that run takes.
 * {@code java -cp benchmarks/target/benchmarks.jar io.nemolens.benchmarks.RunWatchMemory [--ranks N] [--window N]}.
 */
public final class RunWatchMemory {

    private RunWatchMemory() {}

    @SuppressWarnings("UnusedAssignment") // the watch is dropped so that the heap can be read without it
    public static void main(String[] args) throws Exception {
        int ranks = 1000;
        int window = 200;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--ranks" -> ranks = Integer.parseInt(args[i + 1]);
                case "--window" -> window = Integer.parseInt(args[i + 1]);
                default -> throw new IllegalArgumentException("usage: RunWatchMemory [--ranks N] [--window N]");
            }
        }
        int hosts = (ranks + 7) / 8;
        RunWatchSettings settings =
                new RunWatchSettings(window, 0.15, 5, 3, 1, ranks, hosts, Duration.ofMinutes(10), StepPhase.TRAIN_STEP);
        // each reading: a watch filled, the heap with it and without it (what filling loads and keeps anyway,
        // classes and caches, is in both); the median of five
        long[] held = new long[5];
        long judge = Long.MAX_VALUE;
        int watched = 0;
        for (int k = 0; k < held.length; k++) {
            RunWatch watch = new RunWatch(settings, Clock.systemUTC());
            fill(watch, ranks, window, hosts);
            for (int i = 0; i < 20; i++) {
                long t0 = System.nanoTime();
                watch.judge();
                judge = Math.min(judge, System.nanoTime() - t0);
            }
            watched = watch.runs().get(0).ranks();
            long with;
            try {
                with = heapAfterGc();
            } finally {
                Reference.reachabilityFence(watch);
            }
            watch = null;
            held[k] = with - heapAfterGc();
        }
        long[] sorted = held.clone();
        java.util.Arrays.sort(sorted);
        long median = sorted[sorted.length / 2];
        System.out.printf(
                Locale.ROOT,
                "run watch, %,d ranks x %d iterations (3 step spans each), %,d hosts of 8 GPUs: holds %,d bytes"
                        + " (%.1f MiB) after GC (median of 5: %s); stated bound (RunWatchSettings.maxBytes) %,d bytes (%.1f MiB): %s;"
                        + " %.0f bytes per rank; one judgement of the run %.1f ms (best of 20); %s, %s%n",
                ranks,
                window,
                hosts,
                median,
                median / 1048576.0,
                java.util.Arrays.stream(held)
                        .mapToObj(h -> String.format(Locale.ROOT, "%,d", h))
                        .toList(),
                settings.maxBytes(),
                settings.maxBytes() / 1048576.0,
                median <= settings.maxBytes() ? "within it" : "OVER IT",
                (double) median / ranks,
                judge / 1e6,
                System.getProperty("java.vm.name"),
                System.getProperty("java.version"));
        if (watched != ranks) {
            throw new IllegalStateException("not every rank was watched");
        }
    }

    private static void fill(RunWatch watch, int ranks, int window, int hosts) {
        SplittableRandom random = new SplittableRandom(1);
        List<ResourceInfo> resources = new ArrayList<>(ranks);
        for (int r = 0; r < ranks; r++) {
            resources.add(new ResourceInfo(
                    Attributes.of(
                            "nemo.run.id", AnyValue.of("memory-run"),
                            "dl.rank", AnyValue.of((long) r),
                            "dl.local_rank", AnyValue.of((long) (r % 8)),
                            "host.name", AnyValue.of("host-" + r / 8)),
                    0,
                    ""));
        }
        String[] names = {"megatron.train_step", "megatron.forward_backward", "megatron.optimizer_step"};
        for (int i = 1; i <= window; i++) {
            List<Span> spans = new ArrayList<>(ranks * 3);
            for (int r = 0; r < ranks; r++) {
                long start = i * 10_000_000_000L;
                for (String name : names) {
                    spans.add(Span.builder()
                            .traceId("0af7651916cd43dd8448eb211c80319c")
                            .spanId("b7ad6b7169203331")
                            .name(name)
                            .time(start, start + 1_000_000_000L + random.nextInt(500_000_000))
                            .attributes(Attributes.of("megatron.iteration", AnyValue.of((long) i)))
                            .resource(resources.get(r))
                            .build());
                }
            }
            watch.recordSpans(spans);
        }
        String[] fields = {
            "DCGM_FI_DEV_SM_CLOCK",
            "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS",
            "DCGM_FI_DEV_GPU_TEMP",
            "DCGM_FI_DEV_POWER_USAGE",
            "DCGM_FI_DEV_GPU_UTIL",
            "DCGM_FI_DEV_XID_ERRORS"
        };
        List<GpuSample> samples = new ArrayList<>();
        for (int h = 0; h < hosts; h++) {
            for (int g = 0; g < 8; g++) {
                for (String field : fields) {
                    MetricPoint point = MetricPoint.builder()
                            .metric(new MetricInfo(field, "", "", MetricType.GAUGE, false, 0, Attributes.empty()))
                            .value(NumberValue.ofDouble(1))
                            .build();
                    samples.add(GpuSample.builder(point)
                            .host("host-" + h)
                            .gpu(g)
                            .value(1)
                            .build());
                }
            }
        }
        watch.recordGpuSamples(samples);
        // two node-exporter scrapes of every host: two InfiniBand ports' three error counters, TCP retransmits,
        // eth0's receive and transmit errors
        for (int scrape = 0; scrape < 2; scrape++) {
            List<NodeSample> node = new ArrayList<>();
            long t = 1_000_000_000_000L + scrape * 15_000_000_000L;
            for (int h = 0; h < hosts; h++) {
                String host = "host-" + h;
                for (String port : List.of("mlx5_0", "mlx5_1")) {
                    for (String name : List.of(
                            "node_infiniband_port_errors_received_total",
                            "node_infiniband_symbol_error_total",
                            "node_infiniband_link_downed_total")) {
                        node.add(nodeSample(name, host, port, "1", scrape, t));
                    }
                }
                node.add(nodeSample("node_netstat_Tcp_RetransSegs", host, null, null, 1000 + scrape * 9, t));
                node.add(nodeSample("node_network_receive_errs_total", host, "eth0", null, scrape, t));
                node.add(nodeSample("node_network_transmit_errs_total", host, "eth0", null, scrape, t));
            }
            watch.recordNodeSamples(node);
        }
        watch.judge();
    }

    private static NodeSample nodeSample(
            String name, String host, @Nullable String device, @Nullable String port, double value, long t) {
        MetricPoint point = MetricPoint.builder()
                .metric(new MetricInfo(name, "", "", MetricType.SUM, true, 2, Attributes.empty()))
                .value(NumberValue.ofDouble(value))
                .build();
        NodeSample.Builder b =
                NodeSample.builder(point).host(host).value(value).counter(true).timeUnixNano(t);
        if (device != null) {
            b.device(device);
        }
        if (port != null) {
            b.port(port);
        }
        return b.build();
    }

    private static long heapAfterGc() throws InterruptedException {
        for (int i = 0; i < 4; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
