package io.nemolens.app.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Message;
import io.micrometer.core.instrument.MeterRegistry;
import io.nemolens.app.testing.RecordingHandlers;
import io.nemolens.app.testing.RecordingHandlers.Recorded;
import io.nemolens.app.testing.Service;
import io.nemolens.decode.DecodedMessage;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.generator.CollectorJsonWriter;
import io.nemolens.generator.InfraRequests;
import io.nemolens.generator.NemoLensTelemetry;
import io.nemolens.handlers.Encoding;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.SignalBatch;
import io.nemolens.handlers.record.DcgmField;
import io.nemolens.handlers.record.GpuSample;
import io.nemolens.handlers.record.MetricPoint;
import io.nemolens.handlers.record.NodeSample;
import io.nemolens.testing.ArchiveReader;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.RunningConsumer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * dcgm-exporter and node-exporter batches, shaped as the collector's {@code prometheus} receiver makes
 * them, in protobuf and collector JSON through a real broker: typed GPU and node samples reach their
 * handlers (staleness markers skipped, absent labels null), the scrape gauges reach the metric point
 * handlers, and the {@code gpu_metrics} / {@code node_metrics} rows read back with DuckDB; the example query
 * of docs/archive.md runs against the same archive.
 */
class InfraMetricsIT {

    @RegisterExtension
    final ConsumerExtension lens = Service.extension(RecordingHandlers.class);

    @Test
    void gpuAndNodeSamplesInBothEncodingsReachHandlersAndTheArchive() throws Exception {
        RunningConsumer consumer = lens.consumer();
        Message dcgm = NemoLensTelemetry.dcgmBatch();
        Message dcgmNewer = NemoLensTelemetry.dcgmBatchNewerBuild();
        Message node = NemoLensTelemetry.nodeExporterBatch();
        Message traces = NemoLensTelemetry.traces();
        for (Message m : List.of(dcgm, dcgmNewer, node)) {
            lens.publish("otlp_metrics", m.toByteArray());
            lens.publish("otlp_metrics", CollectorJsonWriter.write(m));
        }
        lens.publish("otlp_spans", traces.toByteArray());
        MeterRegistry meters = consumer.bean(MeterRegistry.class);
        await().atMost(Duration.ofSeconds(30)).until(() -> consumer.messages("acked") == 7);
        consumer.awaitArchived(Duration.ofSeconds(30));
        assertThat(lens.poisoned()).isZero();
        assertThat(meters.get("lens.records")
                        .tag("kind", "gpu_sample")
                        .counter()
                        .count())
                .isEqualTo(4 * 38);
        assertThat(meters.get("lens.records")
                        .tag("kind", "node_sample")
                        .counter()
                        .count())
                .isEqualTo(2 * 17);
        assertThat(meters.get("lens.stale.skipped").counter().count()).isEqualTo(4 + 2);

        OtlpDecoder decoder = new OtlpDecoder();
        DecodedMessage expectedDcgm = decoder.decode(Signal.METRICS, dcgm.toByteArray(), null);
        DecodedMessage expectedNewer = decoder.decode(Signal.METRICS, dcgmNewer.toByteArray(), null);
        DecodedMessage expectedNode = decoder.decode(Signal.METRICS, node.toByteArray(), null);

        // the typed records the handlers saw: equal in both encodings and to a direct decode
        Recorded seen = consumer.bean(Recorded.class);
        assertThat(seen.gpus).hasSize(4);
        assertThat(seen.nodes).hasSize(2);
        for (SignalBatch<GpuSample> batch : seen.gpus) {
            List<GpuSample> expected = batch.records().get(0).host().equals("dgx-h100-001")
                    ? expectedNewer.records().gpuSamples()
                    : expectedDcgm.records().gpuSamples();
            assertThat(batch.records()).isEqualTo(expected);
        }
        assertThat(seen.gpus)
                .extracting(b -> b.message().encoding())
                .containsExactlyInAnyOrder(Encoding.PROTOBUF, Encoding.JSON, Encoding.PROTOBUF, Encoding.JSON);
        for (SignalBatch<NodeSample> batch : seen.nodes) {
            assertThat(batch.records()).isEqualTo(expectedNode.records().nodeSamples());
        }
        GpuSample migSample = seen.gpus.stream()
                .flatMap(b -> b.records().stream())
                .filter(s -> s.gpuInstanceId() != null && s.gpu() == 0 && s.field() == DcgmField.GPU_UTIL)
                .findFirst()
                .orElseThrow();
        assertThat(migSample.pod()).isEqualTo("llama3-8b-worker-0");
        assertThat(migSample.value()).isEqualTo(98.0);
        // the scrape gauges stay generic metric points, for the built-in RecordingHandlers
        RecordingHandlers.Recorded recorded = consumer.bean(RecordingHandlers.Recorded.class);
        assertThat(recorded.allMetricPoints())
                .extracting(MetricPoint::name)
                .containsOnlyElementsOf(InfraRequests.SCRAPE_GAUGES)
                .hasSize(6 * InfraRequests.SCRAPE_GAUGES.size());

        Path archive = lens.archive();
        try (ArchiveReader reader = new ArchiveReader(archive)) {
            assertThat(reader.scalar("SELECT count(*) FROM %s", "gpu_metrics")).isEqualTo(4L * 38);
            assertThat(reader.scalar("SELECT count(*) FROM %s", "node_metrics")).isEqualTo(2L * 17);
            assertThat(reader.scalar("SELECT count(*) FROM %s", "metrics"))
                    .isEqualTo(6L * InfraRequests.SCRAPE_GAUGES.size());
            // the staleness markers are not rows: no GPU 1 PCIe rx, no veth receive bytes, and no value is null
            assertThat(reader.scalar(
                            "SELECT count(*) FROM %s WHERE field = 'PROF_PCIE_RX_BYTES' AND gpu = 1", "gpu_metrics"))
                    .isEqualTo(0L);
            assertThat(reader.scalar("SELECT count(*) FROM %s WHERE device = 'veth1a2b3c'", "node_metrics"))
                    .isEqualTo(0L);
            assertThat(reader.scalar("SELECT count(*) FROM %s WHERE value IS NULL", "gpu_metrics"))
                    .isEqualTo(0L);

            List<Map<String, Object>> util = reader.query("""
                    SELECT metric_name, gpu, uuid, pci_bus_id, device, model_name, host, driver_version, gpu_instance_profile,
                           gpu_instance_id, pod, namespace, container, value, is_counter, time_unix_nano, service_name, run_id,
                           attributes->>'$.gpu.stringValue' AS gpu_label
                    FROM %s WHERE field = 'GPU_UTIL' AND gpu = 0 ORDER BY host, _message_id""", "gpu_metrics");
            assertThat(util).hasSize(4);
            Map<String, Object> released = util.get(0);
            assertThat(released.get("host")).isEqualTo("dgx-a100-000");
            assertThat(released.get("metric_name")).isEqualTo("DCGM_FI_DEV_GPU_UTIL");
            assertThat(released.get("uuid")).isEqualTo("GPU-6b1d4c6e-0e4f-9a7e-2f8c-5d3e2a1b0c9d");
            assertThat(released.get("pci_bus_id")).isEqualTo("00000000:07:00.0");
            assertThat(released.get("device")).isEqualTo("nvidia0");
            assertThat(released.get("model_name")).isEqualTo("NVIDIA A100-SXM4-80GB");
            assertThat(released.get("driver_version")).isEqualTo("550.54.15");
            assertThat(released.get("value")).isEqualTo(98.0);
            assertThat(released.get("is_counter")).isEqualTo(false);
            assertThat(released.get("time_unix_nano")).isEqualTo(NemoLensTelemetry.T0 + 15_000_000_000L);
            assertThat(released.get("service_name")).isEqualTo("dcgm-exporter");
            assertThat(released.get("gpu_label")).isEqualTo("0");
            assertThat(released.get("run_id"))
                    .as("a scrape target belongs to no run")
                    .isNull();
            // the MIG and Kubernetes labels: absent from the released build's rows, there in the newer one's
            Map<String, Object> labels = Map.of(
                    "gpu_instance_profile", "1g.10gb",
                    "gpu_instance_id", "7",
                    "pod", "llama3-8b-worker-0",
                    "namespace", "training",
                    "container", "megatron");
            for (String absent : labels.keySet()) {
                assertThat(released.get(absent)).as(absent).isNull();
            }
            Map<String, Object> newer = util.get(3);
            assertThat(newer).containsEntry("host", "dgx-h100-001").containsAllEntriesOf(labels);
            assertThat(reader.scalar(
                            "SELECT count(*) FROM %s WHERE is_counter AND field = 'TOTAL_ENERGY_CONSUMPTION'",
                            "gpu_metrics"))
                    .isEqualTo(8L);

            Map<String, Object> ib = reader.query("""
                    SELECT subsystem, device, port, host, value, is_counter FROM %s
                    WHERE metric_name = 'node_infiniband_port_data_transmitted_bytes_total' AND device = 'mlx5_1' LIMIT 1""", "node_metrics").get(0);
            assertThat(ib)
                    .containsEntry("subsystem", "INFINIBAND")
                    .containsEntry("port", "1")
                    .containsEntry("host", "dgx-a100-000")
                    .containsEntry("value", 2469134.0)
                    .containsEntry("is_counter", true);
            Map<String, Object> netstat = reader.query("""
                    SELECT subsystem, device, port, is_counter, value FROM %s WHERE metric_name = 'node_netstat_Tcp_RetransSegs' LIMIT 1""", "node_metrics").get(0);
            assertThat(netstat)
                    .containsEntry("subsystem", "NETSTAT")
                    .containsEntry("device", null)
                    .containsEntry("port", null)
                    .containsEntry("is_counter", false)
                    .containsEntry("value", 48213.0);

            // docs/archive.md's example query, word for word, against this archive
            List<Map<String, Object>> joined =
                    reader.query(readmeQuery().replace("'lens-archive/", "'" + archive.toAbsolutePath() + "/"));
            assertThat(joined).singleElement().satisfies(row -> {
                assertThat(row.get("host")).isEqualTo("dgx-a100-000");
                assertThat(row.get("steps")).isEqualTo(1L);
                assertThat(row.get("gpus")).isEqualTo(2L);
                assertThat(((Number) row.get("avg_gpu_util")).doubleValue()).isEqualTo(97.5);
                assertThat(((Number) row.get("min_gpu_util")).doubleValue()).isEqualTo(97.0);
            });
        }
    }

    /** The SQL block after the {@code <!-- query: step-minutes-with-gpu-utilization -->} marker in docs/archive.md. */
    static String readmeQuery() throws Exception {
        String readme = Files.readString(Path.of("..", "docs", "archive.md"));
        String start = "<!-- query: step-minutes-with-gpu-utilization -->\n```sql\n";
        int from = readme.indexOf(start);
        assertThat(from).as("docs/archive.md marks the example query").isNotNegative();
        int codeStart = from + start.length();
        return readme.substring(codeStart, readme.indexOf("```", codeStart));
    }
}
