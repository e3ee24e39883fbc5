package io.nemolens.runwatch;

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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Records as the decoder makes them of a Megatron run's spans and its hosts' scrapes, built by hand. */
final class Telemetry {

    static final String RUN = "run-a";

    private final Map<String, ResourceInfo> resources = new HashMap<>();
    private int spanIds;

    /** The resource of a rank of a run: eight ranks per host, {@code dl.local_rank} the GPU. */
    ResourceInfo rank(String run, int rank) {
        return resources.computeIfAbsent(
                run + "/" + rank,
                k -> new ResourceInfo(
                        Attributes.of(
                                "nemo.run.id", AnyValue.of(run),
                                "dl.rank", AnyValue.of((long) rank),
                                "dl.local_rank", AnyValue.of((long) (rank % 8)),
                                "host.name", AnyValue.of(host(rank))),
                        0,
                        ""));
    }

    static String host(int rank) {
        return "host-" + rank / 8;
    }

    /** One step of a rank: its train_step span and the two children, the step taking {@code millis}. */
    List<Span> step(String run, int rank, int iteration, double millis) {
        ResourceInfo resource = rank(run, rank);
        long start = 1_000_000_000_000L + iteration * 10_000_000_000L;
        long total = (long) (millis * 1e6);
        List<Span> spans = new ArrayList<>(3);
        spans.add(span(resource, "megatron.train_step", iteration, start, total));
        spans.add(span(resource, "megatron.forward_backward", iteration, start, total * 9 / 10));
        spans.add(span(resource, "megatron.optimizer_step", iteration, start + total * 9 / 10, total / 10));
        return spans;
    }

    private Span span(ResourceInfo resource, String name, int iteration, long start, long nanos) {
        return Span.builder()
                .traceId("0af7651916cd43dd8448eb211c80319c")
                .spanId(String.format(java.util.Locale.ROOT, "%016x", ++spanIds))
                .name(name)
                .time(start, start + nanos)
                .attributes(Attributes.of("megatron.iteration", AnyValue.of((long) iteration)))
                .resource(resource)
                .build();
    }

    static GpuSample gpu(String host, int gpu, String metric, double value) {
        return GpuSample.builder(point(metric, value))
                .host(host)
                .gpu(gpu)
                .value(value)
                .build();
    }

    static NodeSample node(String host, String metric, String port, double value, long timeUnixNano) {
        return NodeSample.builder(point(metric, value))
                .host(host)
                .port(port)
                .value(value)
                .counter(true)
                .timeUnixNano(timeUnixNano)
                .build();
    }

    private static MetricPoint point(String metric, double value) {
        return MetricPoint.builder()
                .metric(new MetricInfo(metric, "", "", MetricType.GAUGE, false, 0, Attributes.empty()))
                .value(NumberValue.ofDouble(value))
                .build();
    }
}
