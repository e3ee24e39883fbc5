package io.nemolens.archive.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.util.ReflectionTestUtils.getField;

import io.nemolens.archive.ArchiveOptions;
import io.nemolens.archive.ParquetArchive;
import io.nemolens.handlers.GpuSampleHandler;
import io.nemolens.handlers.LogHandler;
import io.nemolens.handlers.MetricPointHandler;
import io.nemolens.handlers.NodeSampleHandler;
import io.nemolens.handlers.SpanHandler;
import io.nemolens.topology.testing.Wiring;
import io.nemolens.topology.testing.Wiring.Replaceable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationListener;

/** Wiring of the Parquet archive ({@code lens.archive.*}), in a folder of the test's own. */
class LensArchiveAutoConfigurationTests {

    private static final long MB = 1L << 20;

    @TempDir
    Path archive;

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LensArchiveAutoConfiguration.class))
                .withPropertyValues("lens.archive.path=" + archive);
    }

    @Test
    void byDefaultEverySignalIsArchivedWithTheConsumersDefaults() {
        runner().run(context -> {
            assertThat(context)
                    .hasNotFailed()
                    .hasSingleBean(MetricPointHandler.class)
                    .hasSingleBean(GpuSampleHandler.class)
                    .hasSingleBean(NodeSampleHandler.class)
                    .hasSingleBean(LogHandler.class)
                    .hasSingleBean(ArchiveHealthIndicator.class)
                    .hasSingleBean(ArchiveMetrics.class)
                    .hasBean("archiveCommitOnShutdown");
            assertThat(context).getBean(SpanHandler.class).isSameAs(context.getBean(ParquetArchive.class));
            assertThat(options(context))
                    .isEqualTo(new ArchiveOptions(
                            archive,
                            1_000_000,
                            128 * MB,
                            Duration.ofSeconds(60),
                            20,
                            8,
                            ArchiveOptions.Compression.ZSTD,
                            1,
                            16 * MB,
                            2));
        });
    }

    @Test
    void everySettingReachesTheArchive() {
        runner().withPropertyValues(
                        "lens.archive.max-rows=5",
                        "lens.archive.max-file-size=2MB",
                        "lens.archive.max-age=90s",
                        "lens.archive.max-pending-messages=3",
                        "lens.archive.max-open-writers=9",
                        "lens.archive.compression=snappy",
                        "lens.archive.zstd-level=7",
                        "lens.archive.row-group-size=1MB",
                        "lens.archive.writers=4",
                        "lens.archive.min-free-space=3MB")
                .run(context -> {
                    assertThat(options(context))
                            .isEqualTo(new ArchiveOptions(
                                    archive,
                                    5,
                                    2 * MB,
                                    Duration.ofSeconds(90),
                                    3,
                                    9,
                                    ArchiveOptions.Compression.SNAPPY,
                                    7,
                                    MB,
                                    4));
                    assertThat(getField(context.getBean(ArchiveHealthIndicator.class), "minFreeBytes"))
                            .isEqualTo(3 * MB);
                });
    }

    @Test
    void pendingMessagesAndWritersFollowTheConsumersPrefetchAndThreads() {
        runner().withPropertyValues("lens.consumer.prefetch=7", "lens.consumer.concurrency=3")
                .run(context -> {
                    assertThat(options(context).maxPendingMessages()).isEqualTo(7);
                    assertThat(options(context).writers()).isEqualTo(3);
                });
        runner().withPropertyValues("lens.consumer.prefetch=7", "lens.archive.max-pending-messages=50")
                .run(context -> assertThat(options(context).maxPendingMessages())
                        .as("never above the prefetch, or the consumer stalls")
                        .isEqualTo(7));
    }

    @Test
    void aDisabledArchiveHasNoBeans() {
        runner().withPropertyValues("lens.archive.enabled=false")
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .doesNotHaveBean(LensArchiveProperties.class)
                        .doesNotHaveBean(ParquetArchive.class)
                        .doesNotHaveBean(SpanHandler.class)
                        .doesNotHaveBean(MetricPointHandler.class)
                        .doesNotHaveBean(GpuSampleHandler.class)
                        .doesNotHaveBean(NodeSampleHandler.class)
                        .doesNotHaveBean(LogHandler.class)
                        .doesNotHaveBean(ArchiveHealthIndicator.class)
                        .doesNotHaveBean(ArchiveMetrics.class)
                        .doesNotHaveBean("archiveCommitOnShutdown"));
    }

    static Stream<Replaceable> replaceables() {
        return Stream.of(
                Replaceable.byType("parquetArchive", ParquetArchive.class),
                Replaceable.byName("archiveMetricPointHandler", MetricPointHandler.class),
                Replaceable.byName("archiveGpuSampleHandler", GpuSampleHandler.class),
                Replaceable.byName("archiveNodeSampleHandler", NodeSampleHandler.class),
                Replaceable.byName("archiveLogHandler", LogHandler.class),
                Replaceable.byName("archiveCommitOnShutdown", ApplicationListener.class),
                Replaceable.byName("archiveHealthIndicator", HealthIndicator.class),
                Replaceable.byType("archiveMetrics", ArchiveMetrics.class));
    }

    @ParameterizedTest
    @MethodSource("replaceables")
    void anApplicationsOwnBeanWins(Replaceable bean) {
        bean.assertBacksOff(runner());
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "lens.archive.zstd-level=23",
                "lens.archive.zstd-level=0",
                "lens.archive.max-rows=0",
                "lens.archive.max-open-writers=0",
                "lens.archive.max-pending-messages=-1",
                "lens.archive.writers=-1",
                "lens.archive.compression=lz4",
                "lens.archive.max-age=soon"
            })
    void anInvalidSettingFailsTheStartNamingTheProperty(String setting) {
        Wiring.assertRejected(runner(), setting);
    }

    /** The archive keeps its options to itself; reading them is for this test only. */
    private static ArchiveOptions options(ApplicationContext context) {
        return (ArchiveOptions) getField(context.getBean(ParquetArchive.class), "options");
    }
}
