package io.nemolens.archive.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.util.ReflectionTestUtils.getField;

import io.nemolens.archive.ArchiveOptions;
import io.nemolens.archive.ArchiveOptionsFixtures;
import io.nemolens.archive.ParquetArchive;
import io.nemolens.archive.parquet.WriterBudget;
import io.nemolens.handlers.LogHandler;
import io.nemolens.handlers.MessageSink;
import io.nemolens.handlers.SpanHandler;
import io.nemolens.testing.Wiring;
import io.nemolens.testing.Wiring.Replaceable;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
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

/** Wiring of the Parquet archive ({@code lens.archive.*}), in a folder of the test's own. */
class LensArchiveAutoConfigurationTest {

    private static final long MB = 1L << 20;

    @TempDir
    Path archive;

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(LensArchiveAutoConfiguration.class))
                .withPropertyValues("lens.archive.path=" + archive);
    }

    @Test
    void byDefaultTheArchiveIsTheMessageSinkWithTheseOptions() {
        runner().run(context -> {
            assertThat(context)
                    .hasNotFailed()
                    .hasSingleBean(MessageSink.class)
                    .hasSingleBean(ArchiveHealthIndicator.class)
                    .hasSingleBean(ArchiveMetrics.class)
                    .doesNotHaveBean(SpanHandler.class)
                    .doesNotHaveBean(LogHandler.class);
            assertThat(context).getBean(MessageSink.class).isSameAs(context.getBean(ParquetArchive.class));
            // lens.archive.*'s defaults are the options' own, and these
            assertThat(options(context))
                    .isEqualTo(ArchiveOptions.defaults(archive))
                    .isEqualTo(ArchiveOptions.builder(archive)
                            .spoolPath(archive.resolve(".spool"))
                            .spoolMaxBytes(4L << 30)
                            .spoolSegmentBytes(64 * MB)
                            .spoolCommitThreshold(0.5)
                            .maxRows(10_000_000)
                            .maxFileSizeBytes(256 * MB)
                            .maxAge(Duration.ofMinutes(5))
                            .maxBufferBytes(96 * MB)
                            .maxOpenFiles(WriterBudget.defaultMaxOpenFiles(96 * MB))
                            .writersPerPartition(2)
                            .rowGroupSizeBytes(32 * MB)
                            .compression(ArchiveOptions.Compression.ZSTD)
                            .zstdLevel(1)
                            .dedupWindow(Duration.ofHours(24))
                            .instanceId(null)
                            .build());
        });
    }

    @Test
    void everySettingReachesTheArchive(@TempDir Path spool) {
        runner().withPropertyValues(
                        "lens.archive.spool.path=" + spool,
                        "lens.archive.spool.max-size=300MB",
                        "lens.archive.spool.segment-size=8MB",
                        "lens.archive.spool.commit-threshold=0.8",
                        "lens.archive.max-rows=5",
                        "lens.archive.max-file-size=2MB",
                        "lens.archive.max-age=90s",
                        "lens.archive.max-buffer-memory=40MB",
                        "lens.archive.max-open-files=20",
                        "lens.archive.writers-per-partition=3",
                        "lens.archive.row-group-size=1MB",
                        "lens.archive.compression=snappy",
                        "lens.archive.zstd-level=7",
                        "lens.archive.dedup-window=2h",
                        "lens.archive.min-free-space=3MB",
                        "lens.archive.health.max-lag=20m",
                        "lens.archive.instance-id=pod-7")
                .run(context -> {
                    assertThat(options(context)).isEqualTo(ArchiveOptionsFixtures.everyOptionChanged(archive, spool));
                    ArchiveHealthIndicator health = context.getBean(ArchiveHealthIndicator.class);
                    assertThat(getField(health, "minFreeBytes")).isEqualTo(3 * MB);
                    assertThat(getField(health, "maxLag")).isEqualTo(Duration.ofMinutes(20));
                });
    }

    @Test
    void theApplicationsClockTimesTheArchive() {
        Clock clock = Clock.fixed(Instant.parse("2026-11-29T19:17:35Z"), ZoneOffset.UTC);
        runner().withBean(Clock.class, () -> clock)
                .run(context -> assertThat(getField(context.getBean(ParquetArchive.class), "clock"))
                        .isSameAs(clock));
    }

    @Test
    void aDisabledArchiveHasNoBeans() {
        runner().withPropertyValues("lens.archive.enabled=false")
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .doesNotHaveBean(LensArchiveProperties.class)
                        .doesNotHaveBean(ParquetArchive.class)
                        .doesNotHaveBean(MessageSink.class)
                        .doesNotHaveBean(ArchiveHealthIndicator.class)
                        .doesNotHaveBean(ArchiveMetrics.class));
    }

    static Stream<Replaceable> replaceables() {
        return Stream.of(
                Replaceable.byType("parquetArchive", ParquetArchive.class),
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
                "lens.archive.dedup-window=yesterday",
                "lens.archive.max-file-size=huge",
                "lens.archive.compression=lz4",
                "lens.archive.max-age=soon",
                "lens.archive.max-open-files=0",
                "lens.archive.writers-per-partition=0",
                "lens.archive.max-open-files=1000"
            })
    void anInvalidSettingFailsTheStartNamingTheProperty(String setting) {
        Wiring.assertRejected(runner(), setting);
    }

    /** The archive keeps its options to itself; reading them is for this test only. */
    private static ArchiveOptions options(ApplicationContext context) {
        return (ArchiveOptions) getField(context.getBean(ParquetArchive.class), "options");
    }
}
