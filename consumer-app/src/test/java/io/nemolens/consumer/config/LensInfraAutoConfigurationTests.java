package io.nemolens.consumer.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nemolens.archive.autoconfigure.LensArchiveAutoConfiguration;
import io.nemolens.consumer.dispatch.HandlerRegistry;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.generator.NemoLensTelemetry;
import io.nemolens.handlers.GpuSampleHandler;
import io.nemolens.handlers.NodeSampleHandler;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.record.GpuSample;
import io.nemolens.topology.autoconfigure.LensTopologyAutoConfiguration;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** {@code lens.infra.*} reaches the decoder, and GPU/node handlers (the archive's first) reach the registry; no broker. */
class LensInfraAutoConfigurationTests {

    @TempDir
    Path archive;

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        RabbitAutoConfiguration.class,
                        LensTopologyAutoConfiguration.class,
                        LensArchiveAutoConfiguration.class,
                        LensConsumerAutoConfiguration.class))
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("lens.consumer.enabled=false", "lens.archive.path=" + archive);
    }

    @Test
    void defaultsClassifyAndTheArchiveHandlesSamplesBeforeTheApplicationsHandlers() {
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
                    assertThat(registry.gpuSampleHandlers()).hasSize(2).last().isSameAs(mine);
                    assertThat(registry.nodeSampleHandlers()).hasSize(2).last().isSameAs(myNodes);
                    assertThat(context.getBean(OtlpDecoder.class)
                                    .decode(
                                            Signal.METRICS,
                                            NemoLensTelemetry.dcgmBatch().toByteArray(),
                                            null)
                                    .gpuSamples())
                            .hasSize(38);
                });
    }

    @Test
    void classificationFollowsTheSettings() {
        runner().withPropertyValues("lens.infra.gpu-jobs=gpus", "lens.infra.gpu-metric-prefix=NOPE_")
                .run(context -> {
                    OtlpDecoder decoder = context.getBean(OtlpDecoder.class);
                    // DCGM_FI_ no longer a prefix, job dcgm-exporter no longer a GPU job: all generic
                    assertThat(decoder.decode(
                                            Signal.METRICS,
                                            NemoLensTelemetry.dcgmBatch().toByteArray(),
                                            null)
                                    .gpuSamples())
                            .isEmpty();
                });
        runner().withPropertyValues("lens.infra.enabled=false").run(context -> {
            var decoded = context.getBean(OtlpDecoder.class)
                    .decode(
                            Signal.METRICS,
                            NemoLensTelemetry.nodeExporterBatch().toByteArray(),
                            null);
            assertThat(decoded.nodeSamples()).isEmpty();
            assertThat(decoded.metricPoints())
                    .as("17 samples, a staleness marker, 5 scrape gauges")
                    .hasSize(17 + 1 + 5);
        });
        runner().withPropertyValues("lens.infra.gpu-jobs=dcgm-exporter,gpus")
                .run(context -> assertThat(context.getBean(OtlpDecoder.class)
                                .decode(
                                        Signal.METRICS,
                                        NemoLensTelemetry.dcgmBatchNewerBuild().toByteArray(),
                                        null)
                                .gpuSamples())
                        .extracting(GpuSample::host)
                        .containsOnly("dgx-h100-001"));
    }
}
