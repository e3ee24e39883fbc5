package io.nemolens.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nemolens.generator.CollectorJsonWriter;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.generator.TelemetryGenerator;
import io.nemolens.generator.TelemetryGenerator.Batch;
import io.nemolens.generator.TelemetryGenerator.Kind;
import io.nemolens.generator.TelemetryGenerator.Settings;
import io.nemolens.handlers.record.MetricPoint;
import io.nemolens.handlers.record.Span;
import io.nemolens.handlers.record.TelemetryRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The generator's stream decodes into records that read like one training run, and every batch decodes alike
 * from protobuf and collector-shaped OTLP/JSON (here, because the generator's own module cannot depend on the
 * decoder: the decoder's tests take their telemetry from the generator).
 */
class GeneratedTelemetryDecodeTest {

    private static final long T0 = NemoLensRequests.START_NANOS;
    /** Every point generic: these tests look at the requests' raw shape. */
    private final OtlpDecoder decoder = new OtlpDecoder(InfraClassifier.NONE);

    private static TelemetryGenerator generator(List<Kind> kinds, int ranks) {
        return new TelemetryGenerator(new Settings(kinds, "run-1", ranks, 8, 12, 5, 7, T0));
    }

    @Test
    void kindsTakeTurnsAndRanksAndHostsRotate() {
        TelemetryGenerator g = generator(List.of(Kind.values()), 16);
        List<Batch> batches = new ArrayList<>();
        for (int i = 0; i < 15; i++) {
            batches.add(g.next());
        }
        assertThat(batches)
                .extracting(Batch::kind)
                .startsWith(Kind.SPANS, Kind.METRICS, Kind.LOGS, Kind.GPU, Kind.NODE, Kind.SPANS);
        assertThat(instances(batches, Kind.SPANS, d -> d.records().spans()))
                .containsExactly("run-1-rank0", "run-1-rank1", "run-1-rank2");
        assertThat(instances(batches, Kind.GPU, d -> d.records().metricPoints()))
                .containsExactly("dgx-a100-000:9400", "dgx-a100-001:9400", "dgx-a100-000:9400");
    }

    /** The {@code service.instance.id} of the first record of each batch of {@code kind}. */
    private List<String> instances(
            List<Batch> batches, Kind kind, Function<DecodedMessage, List<? extends TelemetryRecord>> records) {
        return batches.stream()
                .filter(b -> b.kind() == kind)
                .map(b -> records.apply(decoder.decode(b.signal(), b.request().toByteArray(), null))
                        .get(0)
                        .resource()
                        .attributes()
                        .getText("service.instance.id", ""))
                .toList();
    }

    @Test
    void trainStepsContinueAcrossMessagesWithTheirChildren() {
        TelemetryGenerator g = generator(List.of(Kind.SPANS), 1);
        List<Span> spans = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Batch b = g.next();
            List<Span> decoded = decoder.decode(b.signal(), b.request().toByteArray(), null)
                    .records()
                    .spans();
            assertThat(decoded).hasSize(b.records()).hasSize(12);
            spans.addAll(decoded);
        }
        List<Span> steps = spans.stream()
                .filter(s -> s.name().equals("megatron.train_step"))
                .toList();
        assertThat(steps)
                .extracting(s -> s.attributes().getLong("megatron.iteration"))
                .containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L, 12L);
        assertThat(steps).allSatisfy(s -> assertThat(s.runId()).isEqualTo("run-1"));
        assertThat(steps.get(0).startTimeUnixNano()).isEqualTo(T0);
        for (int i = 1; i < steps.size(); i++) {
            assertThat(steps.get(i).startTimeUnixNano())
                    .isGreaterThan(steps.get(i - 1).endTimeUnixNano());
        }
        Map<String, Span> byId = spans.stream().collect(Collectors.toMap(Span::spanId, Function.identity()));
        assertThat(spans)
                .filteredOn(s -> !s.name().equals("megatron.train_step"))
                .extracting(Span::name)
                .containsOnly("megatron.forward_backward", "megatron.optimizer_step");
        assertThat(spans)
                .filteredOn(s -> !s.name().equals("megatron.train_step"))
                .allSatisfy(child -> {
                    Span parent = byId.get(child.parentSpanId());
                    assertThat(parent.name()).isEqualTo("megatron.train_step");
                    assertThat(child.traceId()).isEqualTo(parent.traceId());
                    assertThat(child.attributes().getLong("megatron.iteration"))
                            .isEqualTo(parent.attributes().getLong("megatron.iteration"));
                });
        assertThat(steps.get(0).resource().attributes().getLong("dl.rank")).isZero();
    }

    @Test
    void trainingMetricsAreCumulativeOverTheRun() {
        TelemetryGenerator g = generator(List.of(Kind.SPANS, Kind.METRICS), 1);
        g.next();
        List<MetricPoint> first = decoder.decode(
                        io.nemolens.handlers.Signal.METRICS, g.next().request().toByteArray(), null)
                .records()
                .metricPoints();
        g.next();
        List<MetricPoint> second = decoder.decode(
                        io.nemolens.handlers.Signal.METRICS, g.next().request().toByteArray(), null)
                .records()
                .metricPoints();

        assertThat(first)
                .extracting(MetricPoint::name)
                .containsExactly(
                        "megatron.training.step_duration_ms",
                        "megatron.training.loss",
                        "megatron.training.throughput_tflops",
                        "megatron.training.tokens_per_sec",
                        "megatron.training.grad_norm",
                        "megatron.training.learning_rate",
                        "megatron.training.memory_allocated_gb",
                        "megatron.training.skipped_iters");
        var h1 = (io.nemolens.handlers.record.PointValue.Histogram) first.get(0).value();
        var h2 =
                (io.nemolens.handlers.record.PointValue.Histogram) second.get(0).value();
        assertThat(h1.count()).isEqualTo(4);
        assertThat(h2.count()).isEqualTo(8);
        assertThat(h1.bucketCounts().stream().mapToLong(Long::longValue).sum()).isEqualTo(4);
        assertThat(second.get(0).timeUnixNano()).isGreaterThan(first.get(0).timeUnixNano());
        assertThat(second.get(0).startTimeUnixNano()).isEqualTo(T0);
    }

    @Test
    void scrapesLookLikeThePrometheusReceiversAndCountersGrow() {
        TelemetryGenerator g = generator(List.of(Kind.GPU, Kind.NODE), 8);
        List<MetricPoint> gpu1 = decoder.decode(
                        io.nemolens.handlers.Signal.METRICS, g.next().request().toByteArray(), null)
                .records()
                .metricPoints();
        List<MetricPoint> node1 = decoder.decode(
                        io.nemolens.handlers.Signal.METRICS, g.next().request().toByteArray(), null)
                .records()
                .metricPoints();
        List<MetricPoint> gpu2 = decoder.decode(
                        io.nemolens.handlers.Signal.METRICS, g.next().request().toByteArray(), null)
                .records()
                .metricPoints();

        assertThat(gpu1)
                .filteredOn(p -> p.name().equals("DCGM_FI_DEV_GPU_TEMP"))
                .hasSize(8)
                .allSatisfy(
                        p -> assertThat(p.attributes().getText("Hostname", "")).isEqualTo("dgx-a100-000"));
        assertThat(gpu1.get(0).resource().serviceName()).isEqualTo("dcgm-exporter");
        assertThat(value(gpu1, "scrape_samples_scraped")).isEqualTo(gpu1.size() - 5);
        assertThat(value(gpu2, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"))
                .isGreaterThan(value(gpu1, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"));
        assertThat(gpu2.get(0).timeUnixNano() - gpu1.get(0).timeUnixNano())
                .isEqualTo(TelemetryGenerator.SCRAPE_INTERVAL_NANOS);
        assertThat(node1.get(0).resource().serviceName()).isEqualTo("node-exporter");
        assertThat(value(node1, "scrape_samples_scraped")).isEqualTo(node1.size() - 5);
        assertThat(node1)
                .extracting(MetricPoint::name)
                .contains(
                        "node_infiniband_port_data_received_bytes_total",
                        "node_netstat_Tcp_RetransSegs",
                        "node_network_receive_bytes_total",
                        "up");
    }

    private static double value(List<MetricPoint> points, String name) {
        MetricPoint p =
                points.stream().filter(x -> x.name().equals(name)).findFirst().orElseThrow();
        return ((io.nemolens.handlers.record.PointValue.Number) p.value())
                .value()
                .asDouble();
    }

    @Test
    void everyKindDecodesAlikeFromProtobufAndCollectorJson() {
        TelemetryGenerator g = generator(List.of(Kind.values()), 3);
        for (int i = 0; i < 10; i++) {
            Batch b = g.next();
            var fromProto = decoder.decode(b.signal(), b.request().toByteArray(), null);
            var fromJson = decoder.decode(b.signal(), CollectorJsonWriter.write(b.request()), null);
            assertThat(fromJson.request()).as(b.kind().label()).isEqualTo(fromProto.request());
            assertThat(fromProto.records().spans().size()
                            + fromProto.records().metricPoints().size()
                            + fromProto.records().logs().size())
                    .isEqualTo(b.records());
        }
    }

    @Test
    void settingsAreChecked() {
        assertThatThrownBy(() -> new Settings(List.of(), "r", 1, 8, 1, 1, 1, T0))
                .hasMessageContaining("at least one kind");
        assertThatThrownBy(() -> new Settings(List.of(Kind.GPU), "r", 0, 8, 1, 1, 1, T0))
                .hasMessageContaining("ranks must be at least 1");
        assertThatThrownBy(() -> new Settings(List.of(Kind.GPU), "r", 1, 65, 1, 1, 1, T0))
                .hasMessageContaining("GPUs per host must be 1 to 64");
    }
}
