package io.nemolens.consumer.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.archive.ParquetArchive;
import io.nemolens.archive.autoconfigure.LensArchiveAutoConfiguration;
import io.nemolens.consumer.dispatch.HandlerRegistry;
import io.nemolens.decode.DecodedMessage;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.generator.NemoLensTelemetry;
import io.nemolens.handlers.GpuSampleHandler;
import io.nemolens.handlers.NodeSampleHandler;
import io.nemolens.handlers.RecordKind;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.record.GpuSample;
import io.nemolens.testing.Wiring;
import io.nemolens.topology.autoconfigure.LensTopologyAutoConfiguration;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/** Every {@code lens.infra.*} setting reaches the decoder, and GPU/node handlers (the archive's first) reach the registry; no broker. */
class LensInfraAutoConfigurationTest {

    @TempDir
    Path archive;

    private ApplicationContextRunner runner() {
        return Wiring.brokerless(LensTopologyAutoConfiguration.class, LensConsumerAutoConfiguration.class)
                .withConfiguration(AutoConfigurations.of(LensArchiveAutoConfiguration.class))
                .withPropertyValues("lens.archive.path=" + archive);
    }

    @Test
    void defaultsClassifyAndTheApplicationsHandlersGetTheSamplesAndTheArchiveEveryMessage() {
        GpuSampleHandler mine = batch -> {};
        NodeSampleHandler myNodes = batch -> {};
        runner().withBean(GpuSampleHandler.class, () -> mine)
                .withBean(NodeSampleHandler.class, () -> myNodes)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LensInfraProperties infra = context.getBean(LensInfraProperties.class);
                    assertThat(infra.enabled()).isTrue();
                    assertThat(infra.gpuJobs()).containsExactly("dcgm-exporter");
                    assertThat(infra.gpuMetricPrefix()).isEqualTo("DCGM_FI_");
                    assertThat(infra.nodeJobs()).containsExactly("node-exporter");
                    assertThat(infra.nodeMetricPrefix()).isEqualTo("node_");
                    HandlerRegistry registry = context.getBean(HandlerRegistry.class);
                    assertThat(registry.handlers(RecordKind.GPU_SAMPLES)).containsExactly(mine);
                    assertThat(registry.handlers(RecordKind.NODE_SAMPLES)).containsExactly(myNodes);
                    assertThat(registry.sinks()).containsExactly(context.getBean(ParquetArchive.class));
                    assertThat(decoded(context, NemoLensTelemetry.dcgmBatch())
                                    .records()
                                    .gpuSamples())
                            .hasSize(38);
                });
    }

    @Test
    void classificationFollowsTheSettings() {
        runner().withPropertyValues("lens.infra.gpu-jobs=gpus", "lens.infra.gpu-metric-prefix=NOPE_")
                .run(context -> assertThat(decoded(context, NemoLensTelemetry.dcgmBatch())
                                .records()
                                .gpuSamples())
                        .as("DCGM_FI_ no longer a prefix, job dcgm-exporter no longer a GPU job: all generic")
                        .isEmpty());
        runner().withPropertyValues("lens.infra.enabled=false").run(context -> {
            var decoded = decoded(context, NemoLensTelemetry.nodeExporterBatch());
            assertThat(decoded.records().nodeSamples()).isEmpty();
            assertThat(decoded.records().metricPoints())
                    .as("17 samples, a staleness marker, 5 scrape gauges")
                    .hasSize(17 + 1 + 5);
        });
        runner().withPropertyValues("lens.infra.node-jobs=nodes", "lens.infra.node-metric-prefix=NOPE_")
                .run(context -> assertThat(decoded(context, NemoLensTelemetry.nodeExporterBatch())
                                .records()
                                .nodeSamples())
                        .as("node_ no longer a prefix, job node-exporter no longer a node job")
                        .isEmpty());
        runner().withPropertyValues("lens.infra.gpu-jobs=dcgm-exporter,gpus")
                .run(context -> assertThat(decoded(context, NemoLensTelemetry.dcgmBatchNewerBuild())
                                .records()
                                .gpuSamples())
                        .extracting(GpuSample::host)
                        .containsOnly("dgx-h100-001"));
    }

    private static DecodedMessage decoded(ApplicationContext context, ExportMetricsServiceRequest request) {
        return context.getBean(OtlpDecoder.class).decode(Signal.METRICS, request.toByteArray(), null);
    }
}
