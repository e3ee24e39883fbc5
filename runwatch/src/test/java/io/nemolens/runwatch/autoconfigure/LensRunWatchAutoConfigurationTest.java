package io.nemolens.runwatch.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.nemolens.consumer.config.LensConsumerAutoConfiguration;
import io.nemolens.consumer.dispatch.HandlerRegistry;
import io.nemolens.handlers.RecordKind;
import io.nemolens.handlers.record.AnyValue;
import io.nemolens.handlers.record.Attributes;
import io.nemolens.handlers.record.ResourceInfo;
import io.nemolens.handlers.record.Span;
import io.nemolens.runwatch.RunWatch;
import io.nemolens.runwatch.RunWatchGpuHandler;
import io.nemolens.runwatch.RunWatchNodeHandler;
import io.nemolens.runwatch.RunWatchSpanHandler;
import io.nemolens.runwatch.StepPhase;
import io.nemolens.testing.MutableClock;
import io.nemolens.testing.Wiring;
import io.nemolens.testing.WiringChecks;
import io.nemolens.topology.autoconfigure.LensTopologyAutoConfiguration;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Wiring of the run watch ({@code lens.run-watch.*}) beside the consumer's, without a broker. */
class LensRunWatchAutoConfigurationTest implements WiringChecks {

    private final MutableClock clock = MutableClock.at("2026-12-07T12:00:00Z");

    private final ApplicationContextRunner runner = Wiring.brokerless(
                    LensTopologyAutoConfiguration.class,
                    LensConsumerAutoConfiguration.class,
                    LensRunWatchAutoConfiguration.class)
            .withBean("lensClock", Clock.class, () -> clock);

    @Override
    public ApplicationContextRunner runner() {
        return runner;
    }

    static Stream<Wiring.Replaceable> replaceables() {
        return Stream.of(
                Wiring.Replaceable.byType("lensRunWatch", RunWatch.class),
                Wiring.Replaceable.byType("lensRunWatchSpanHandler", RunWatchSpanHandler.class),
                Wiring.Replaceable.byType("lensRunWatchGpuHandler", RunWatchGpuHandler.class),
                Wiring.Replaceable.byType("lensRunWatchNodeHandler", RunWatchNodeHandler.class));
    }

    static Stream<String> invalidSettings() {
        return Stream.of(
                "lens.run-watch.window=1",
                "lens.run-watch.threshold=0",
                "lens.run-watch.threshold=-0.1",
                "lens.run-watch.consecutive=0",
                "lens.run-watch.min-ranks=1",
                "lens.run-watch.max-ranks=1",
                "lens.run-watch.max-runs=0",
                "lens.run-watch.judged=backward");
    }

    @Test
    void theWatchsHandlersAreCalledWithTheApplicationsOwn() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            HandlerRegistry registry = context.getBean(HandlerRegistry.class);
            assertThat(registry.handlers(RecordKind.SPANS)).hasAtLeastOneElementOfType(RunWatchSpanHandler.class);
            assertThat(registry.handlers(RecordKind.GPU_SAMPLES)).hasAtLeastOneElementOfType(RunWatchGpuHandler.class);
            assertThat(registry.handlers(RecordKind.NODE_SAMPLES))
                    .hasAtLeastOneElementOfType(RunWatchNodeHandler.class);
            assertThat(context.getBean(RunWatch.class).settings().window()).isEqualTo(200);
        });
    }

    @Test
    void offWithOneSetting() {
        runner.withPropertyValues("lens.run-watch.enabled=false").run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(RunWatch.class);
            assertThat(context.getBean(HandlerRegistry.class).handlers(RecordKind.SPANS))
                    .isEmpty();
            assertThat(context.getBean(MeterRegistry.class)
                            .find("lens.runwatch.ranks")
                            .gauge())
                    .isNull();
        });
    }

    @Test
    void theSettingsReachTheWatch() {
        runner.withPropertyValues(
                        "lens.run-watch.window=50",
                        "lens.run-watch.threshold=0.25",
                        "lens.run-watch.consecutive=3",
                        "lens.run-watch.max-ranks=100",
                        "lens.run-watch.quiet-period=2m",
                        "lens.run-watch.judged=forward-backward")
                .run(context -> {
                    var settings = context.getBean(RunWatch.class).settings();
                    assertThat(settings.window()).isEqualTo(50);
                    assertThat(settings.threshold()).isEqualTo(0.25);
                    assertThat(settings.consecutive()).isEqualTo(3);
                    assertThat(settings.maxRanks()).isEqualTo(100);
                    assertThat(settings.quietPeriod()).isEqualTo(Duration.ofMinutes(2));
                    assertThat(settings.judged()).isEqualTo(StepPhase.FORWARD_BACKWARD);
                    assertThat(settings.maxBytes()).isEqualTo(100 * (16 * 50 + 320) + 1024 * 3000);
                });
    }

    @Test
    void theMetersHaveASeriesPerRunUntilTheRunEnds() {
        runner.withPropertyValues("lens.run-watch.judge-interval=1h").run(context -> {
            RunWatch watch = context.getBean(RunWatch.class);
            RunWatchJudge judge = context.getBean(RunWatchJudge.class);
            MeterRegistry meters = context.getBean(MeterRegistry.class);
            List<Span> spans = new ArrayList<>();
            for (int iteration = 1; iteration <= 8; iteration++) {
                for (int rank = 0; rank < 4; rank++) {
                    spans.add(step(rank, iteration, rank == 2 ? 2000 : 1500));
                }
            }
            watch.recordSpans(spans);

            judge.runOnce();

            assertThat(meters.get("lens.run.stragglers")
                            .tag("run", "run-m")
                            .gauge()
                            .value())
                    .isEqualTo(1);
            assertThat(meters.get("lens.run.iteration")
                            .tag("run", "run-m")
                            .gauge()
                            .value())
                    .isEqualTo(8);
            assertThat(meters.get("lens.run.ranks").tag("run", "run-m").gauge().value())
                    .isEqualTo(4);
            assertThat(meters.get("lens.run.slowest.rank")
                            .tag("run", "run-m")
                            .gauge()
                            .value())
                    .isEqualTo(2);
            assertThat(meters.get("lens.run.slowest.rank.lag")
                            .tag("run", "run-m")
                            .gauge()
                            .value())
                    .isCloseTo(0.333, org.assertj.core.data.Offset.offset(0.01));
            assertThat(meters.get("lens.run.step.time")
                            .tags("run", "run-m", "quantile", "0.5")
                            .gauge()
                            .value())
                    .isEqualTo(1.5);
            assertThat(meters.get("lens.run.step.time")
                            .tags("run", "run-m", "quantile", "0.99")
                            .gauge()
                            .value())
                    .isEqualTo(2.0);
            assertThat(meters.get("lens.runwatch.ranks").gauge().value()).isEqualTo(4);

            clock.advance(Duration.ofMinutes(11));
            judge.runOnce();

            assertThat(meters.find("lens.run.stragglers").tag("run", "run-m").gauge())
                    .isNull();
            assertThat(meters.find("lens.run.step.time").tag("run", "run-m").gauge())
                    .isNull();
            assertThat(meters.get("lens.runwatch.ranks").gauge().value()).isZero();
        });
    }

    private static Span step(int rank, int iteration, double millis) {
        long start = iteration * 10_000_000_000L;
        return Span.builder()
                .traceId("0af7651916cd43dd8448eb211c80319c")
                .spanId(String.format(java.util.Locale.ROOT, "%08x%08x", rank, iteration))
                .name("megatron.train_step")
                .time(start, start + (long) (millis * 1e6))
                .attributes(Attributes.of("megatron.iteration", AnyValue.of((long) iteration)))
                .resource(new ResourceInfo(
                        Attributes.of(
                                "nemo.run.id", AnyValue.of("run-m"),
                                "dl.rank", AnyValue.of((long) rank),
                                "host.name", AnyValue.of("h")),
                        0,
                        ""))
                .build();
    }
}
