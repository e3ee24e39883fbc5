package io.nemolens.runwatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.handlers.record.Span;
import io.nemolens.testing.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class RunWatchTest {

    private static final String RUN = Telemetry.RUN;

    private final MutableClock clock = MutableClock.at("2026-12-07T12:00:00Z");
    private final Telemetry telemetry = new Telemetry();
    private final SplittableRandom random = new SplittableRandom(7);

    private RunWatch watch(RunWatchSettings settings) {
        return new RunWatch(settings, clock);
    }

    /** Iterations {@code from..to} of {@code ranks} ranks, each step 1,500 ms +- 5 %, rank {@code slow} times {@code factor} from {@code slowFrom}. */
    private List<Span> steps(int ranks, int from, int to, int slow, double factor, int slowFrom) {
        List<Span> spans = new ArrayList<>();
        for (int i = from; i <= to; i++) {
            for (int r = 0; r < ranks; r++) {
                double millis = 1500 * (0.95 + random.nextDouble() * 0.1);
                if (r == slow && i >= slowFrom) {
                    millis *= factor;
                }
                spans.addAll(telemetry.step(RUN, r, i, millis));
            }
        }
        return spans;
    }

    @Test
    void aRankSlowerThanTheMedianForFiveIterationsInARowIsAStraggler() {
        RunWatch watch = watch(RunWatchSettings.DEFAULTS);
        watch.recordSpans(steps(16, 1, 53, 5, 1.3, 50));

        assertThat(watch.judge()).isEmpty();
        assertThat(watch.runs()).singleElement().satisfies(run -> {
            assertThat(run.stragglers()).isZero();
            assertThat(run.slowestRank()).isNotEqualTo(-1);
        });

        watch.recordSpans(steps(16, 54, 54, 5, 1.3, 50));
        List<StragglerChange> changes = watch.judge();

        assertThat(changes).singleElement().satisfies(c -> {
            assertThat(c.rank()).isEqualTo(5);
            assertThat(c.straggler()).isTrue();
            assertThat(c.iteration()).isEqualTo(50);
            assertThat(c.host()).isEqualTo("host-0");
            assertThat(c.gpu()).isEqualTo(5);
            assertThat(c.lag()).isBetween(0.2, 0.4);
        });
        RunSummary run = watch.runs().get(0);
        assertThat(run.stragglers()).isEqualTo(1);
        assertThat(run.slowestRank()).isEqualTo(5);
        assertThat(run.slowestLag()).isBetween(0.2, 0.4);
        assertThat(run.lastIteration()).isEqualTo(54);
        assertThat(run.ranks()).isEqualTo(16);
        assertThat(run.stepP50Seconds()).isBetween(1.45, 1.55);
        assertThat(run.stepP99Seconds()).isGreaterThan(1.8);
        assertThat(watch.run(RUN)).hasValueSatisfying(detail -> {
            assertThat(detail.stragglers()).singleElement().satisfies(s -> {
                assertThat(s.rank()).isEqualTo(5);
                assertThat(s.since()).isEqualTo(50);
            });
            assertThat(detail.ranks()).hasSize(16);
            assertThat(detail.iterations()).hasSize(54).startsWith(1L).endsWith(54L);
            RunDetail.RankRow row = detail.ranks().get(5);
            assertThat(row.straggler()).isTrue();
            assertThat(row.ratios()[53]).isBetween(1.15f, 1.5f);
            assertThat(row.ratios()[0]).isBetween(0.85f, 1.15f);
        });
    }

    @Test
    void aStragglerThatCatchesUpForFiveIterationsIsNoLongerOne() {
        RunWatch watch = watch(RunWatchSettings.DEFAULTS);
        watch.recordSpans(steps(8, 1, 60, 2, 1.5, 40));
        assertThat(watch.judge())
                .singleElement()
                .extracting(StragglerChange::straggler)
                .isEqualTo(true);

        watch.recordSpans(steps(8, 61, 64, -1, 1, 0));
        assertThat(watch.judge()).as("four steps back in line are not enough").isEmpty();
        watch.recordSpans(steps(8, 65, 65, -1, 1, 0));

        assertThat(watch.judge()).singleElement().satisfies(c -> {
            assertThat(c.straggler()).isFalse();
            assertThat(c.rank()).isEqualTo(2);
            assertThat(c.iteration()).isEqualTo(65);
        });
        assertThat(watch.runs().get(0).stragglers()).isZero();
    }

    @Test
    void ranksWithinTheThresholdOfEachOtherAreNeverFlagged() {
        RunWatch watch = watch(RunWatchSettings.DEFAULTS);
        for (int from = 1; from <= 1000; from += 50) {
            watch.recordSpans(steps(64, from, from + 49, -1, 1, 0));
            assertThat(watch.judge()).isEmpty();
        }
        assertThat(watch.runs().get(0).lastIteration()).isEqualTo(1000);
    }

    @Test
    void aRankWhoseSpansArriveHundredsOfIterationsAheadIsJudgedOnceTheOthersCatchUp() {
        RunWatch watch = watch(RunWatchSettings.DEFAULTS);
        // as a collector that batches one rank's spans at a time sends them: rank 3 (slow) first, far ahead
        List<Span> all = steps(8, 1, 300, 3, 1.3, 1);
        List<Span> rank3 = all.stream()
                .filter(s -> s.resource().attributes().getLong("dl.rank") == 3)
                .toList();
        watch.recordSpans(rank3);
        assertThat(watch.judge()).as("one rank alone is not judged").isEmpty();

        watch.recordSpans(all);

        assertThat(watch.judge()).singleElement().satisfies(c -> {
            assertThat(c.rank()).isEqualTo(3);
            assertThat(c.iteration()).as("the window's oldest").isEqualTo(101);
        });
    }

    @Test
    void anIterationIsJudgedOnlyOnceHalfTheRanksReportedIt() {
        RunWatch watch = watch(RunWatchSettings.DEFAULTS);
        watch.recordSpans(steps(10, 1, 10, -1, 1, 0));
        // iteration 11 from four of ten ranks, one of them three times slower
        for (int r = 0; r < 4; r++) {
            watch.recordSpans(telemetry.step(RUN, r, 11, r == 0 ? 4500 : 1500));
        }
        watch.judge();

        RunSummary run = watch.runs().get(0);
        assertThat(run.lastIteration()).isEqualTo(11);
        assertThat(run.iterations())
                .extracting(RunSummary.IterationStat::iteration)
                .endsWith(10L);
    }

    @Test
    void theRanksBeyondTheBudgetAreNotWatchedAndCounted() {
        RunWatchSettings settings =
                new RunWatchSettings(50, 0.15, 5, 3, 1, 6, 16, Duration.ofMinutes(10), StepPhase.TRAIN_STEP);
        RunWatch watch = watch(settings);
        watch.recordSpans(steps(8, 1, 10, -1, 1, 0));
        watch.recordSpans(telemetry.step("run-b", 0, 1, 1500));
        watch.judge();

        assertThat(watch.ranksWatched()).isEqualTo(6);
        assertThat(watch.runs()).singleElement().extracting(RunSummary::ranks).isEqualTo(6);
        assertThat(watch.spansIgnored())
                .as("two ranks x 10 steps x 3 spans, and run-b's 3")
                .isEqualTo(63);
    }

    @Test
    void aRunThatWentQuietIsForgottenAndItsRanksGoBackToTheBudget() {
        RunWatch watch = watch(RunWatchSettings.DEFAULTS);
        watch.recordSpans(steps(8, 1, 10, -1, 1, 0));
        watch.judge();
        clock.advance(Duration.ofMinutes(9));
        watch.recordSpans(telemetry.step("run-b", 0, 1, 1500));
        watch.judge();
        assertThat(watch.runs()).extracting(RunSummary::runId).containsExactly("run-b", RUN);

        clock.advance(Duration.ofMinutes(2));
        watch.judge();

        assertThat(watch.runs()).extracting(RunSummary::runId).containsExactly("run-b");
        assertThat(watch.ranksWatched()).isEqualTo(1);
        assertThat(watch.run(RUN)).isEmpty();
    }

    @Test
    void spansOfOtherNamesOrWithoutRunRankOrIterationArePassedOver() {
        RunWatch watch = watch(RunWatchSettings.DEFAULTS);
        Span noIteration = Span.builder()
                .traceId("0af7651916cd43dd8448eb211c80319c")
                .spanId("00000000000000aa")
                .name("megatron.train_step")
                .time(1, 2)
                .resource(telemetry.rank(RUN, 0))
                .build();
        Span other = Span.builder()
                .traceId("0af7651916cd43dd8448eb211c80319c")
                .spanId("00000000000000ab")
                .name("megatron.data_loading")
                .time(1, 2)
                .resource(telemetry.rank(RUN, 0))
                .build();

        watch.recordSpans(List.of(noIteration, other));
        watch.judge();

        assertThat(watch.runs()).singleElement().satisfies(run -> {
            assertThat(run.lastIteration()).isEqualTo(-1);
            assertThat(run.iterations()).isEmpty();
        });
        assertThat(watch.spansIgnored()).isZero();
    }

    @Test
    void judgingTheForwardBackwardPassFindsARankWhoseComputeIsSlowEvenWhenItsStepsAreNot() {
        RunWatchSettings settings = new RunWatchSettings(
                200, 0.15, 5, 3, 32, 4096, 1024, Duration.ofMinutes(10), StepPhase.FORWARD_BACKWARD);
        RunWatch watch = watch(settings);
        for (int i = 1; i <= 10; i++) {
            for (int r = 0; r < 8; r++) {
                List<Span> step = telemetry.step(RUN, r, i, 1500);
                if (r == 4) {
                    // its forward-backward takes 1.3 x, but the step (ending at a collective) does not
                    Span fb = step.get(1);
                    step = List.of(
                            step.get(0),
                            Span.builder()
                                    .traceId(fb.traceId())
                                    .spanId(fb.spanId())
                                    .name(fb.name())
                                    .time(
                                            fb.startTimeUnixNano(),
                                            fb.startTimeUnixNano() + (long) (fb.durationNanos() * 1.3))
                                    .attributes(fb.attributes())
                                    .resource(fb.resource())
                                    .build());
                }
                watch.recordSpans(step);
            }
        }

        assertThat(watch.judge())
                .singleElement()
                .extracting(StragglerChange::rank)
                .isEqualTo(4);
    }

    @Test
    void aStragglerSlowForLongerThanTheWindowKeepsTheIterationItBecameSlowAt() {
        RunWatchSettings settings = RunWatchSettings.builder().window(20).build();
        RunWatch watch = watch(settings);
        for (int from = 1; from <= 100; from += 10) {
            watch.recordSpans(steps(8, from, from + 9, 2, 1.5, 10));
            watch.judge();
        }

        Straggler straggler = watch.run(RUN).orElseThrow().stragglers().get(0);
        assertThat(straggler.since()).isEqualTo(10);
        assertThat(straggler.flaggedAt()).as("the fifth slow step").isEqualTo(14);
    }

    @Test
    void aStragglerThatStopsReportingIsNoLongerOne() {
        RunWatch watch = watch(RunWatchSettings.DEFAULTS);
        watch.recordSpans(steps(8, 1, 20, 2, 1.5, 10));
        assertThat(watch.judge())
                .singleElement()
                .extracting(StragglerChange::straggler)
                .isEqualTo(true);
        List<Span> without = steps(8, 21, 25, 2, 1.5, 10).stream()
                .filter(s -> s.resource().attributes().getLong("dl.rank") != 2)
                .toList();
        watch.recordSpans(without);

        assertThat(watch.judge()).singleElement().satisfies(c -> {
            assertThat(c.rank()).isEqualTo(2);
            assertThat(c.straggler()).isFalse();
            assertThat(c.iteration()).as("its last report").isEqualTo(20);
        });
    }

    @Test
    void aWildIterationNeitherMovesTheWindowNorStopsTheJudgingOfAnyRun() {
        RunWatch watch = watch(RunWatchSettings.DEFAULTS);
        watch.recordSpans(steps(8, 1, 10, 3, 1.5, 1));
        watch.recordSpans(telemetry.step(RUN, 0, RunWatch.MAX_ITERATION, 1500));
        watch.recordSpans(telemetry.step(RUN, 1, Integer.MAX_VALUE, 1500));
        watch.recordSpans(telemetry.step("run-b", 0, 1, 1500));

        assertThat(watch.judge())
                .singleElement()
                .extracting(StragglerChange::rank)
                .isEqualTo(3);
        assertThat(watch.runs()).extracting(RunSummary::runId).contains(RUN, "run-b");
        assertThat(watch.runs().stream()
                        .filter(r -> r.runId().equals(RUN))
                        .findFirst()
                        .orElseThrow()
                        .lastIteration())
                .isEqualTo(10);
        assertThat(watch.failures()).isZero();
    }

    @Test
    void aRunThatWentBackToACheckpointIsJudgedOnItsNewSteps() {
        RunWatch watch = watch(RunWatchSettings.builder().window(50).build());
        watch.recordSpans(steps(8, 1, 300, -1, 1, 0));
        watch.judge();
        // back to the checkpoint of iteration 100: rank 6 is slow from 150 on
        watch.recordSpans(steps(8, 101, 160, 6, 1.4, 150));

        assertThat(watch.judge()).singleElement().satisfies(c -> {
            assertThat(c.rank()).isEqualTo(6);
            assertThat(c.iteration()).isEqualTo(150);
        });
        assertThat(watch.runs().get(0).lastIteration()).isEqualTo(160);
    }

    @Test
    void ranksRecordedFromSeveralThreadsWhileJudgedAndReadAreAllCounted() throws Exception {
        RunWatchSettings settings = RunWatchSettings.builder().maxRanks(100).build();
        RunWatch watch = watch(settings);
        int threads = 4;
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads + 1);
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        List<java.util.concurrent.Future<?>> work = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            work.add(pool.submit(() -> {
                Telemetry mine = new Telemetry();
                for (int i = 1; i <= 60; i++) {
                    for (int r = 0; r < 80; r++) {
                        // runs a and b: 80 ranks each, every thread writing all of them; run c from thread 0 only
                        watch.recordSpans(mine.step(r % 2 == 0 ? "run-a" : "run-b", r, i, 1500 + thread));
                        if (thread == 0 && r < 60) {
                            watch.recordSpans(mine.step("run-c", r, i, 1500));
                        }
                    }
                }
                return null;
            }));
        }
        java.util.concurrent.Future<?> reader = pool.submit(() -> {
            while (!done.get()) {
                watch.judge();
                watch.runs().forEach(run -> watch.run(run.runId()));
            }
            return null;
        });
        for (java.util.concurrent.Future<?> f : work) {
            f.get();
        }
        done.set(true);
        reader.get();
        pool.shutdown();
        watch.judge();

        int sum = watch.runs().stream().mapToInt(RunSummary::ranks).sum();
        assertThat(sum).as("140 ranks offered").isEqualTo(watch.ranksWatched()).isEqualTo(100);
        assertThat(watch.failures()).isZero();
        assertThat(watch.spansIgnored()).isPositive();
    }

    @Test
    void aFailingRecordIsTheWatchsFailureNeverTheBatchs() throws Exception {
        java.time.Clock broken = new java.time.Clock() {
            @Override
            public java.time.ZoneId getZone() {
                return java.time.ZoneOffset.UTC;
            }

            @Override
            public java.time.Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public java.time.Instant instant() {
                throw new IllegalStateException("a bug of the watch's");
            }
        };
        RunWatch watch = new RunWatch(RunWatchSettings.DEFAULTS, broken);
        RunWatchSpanHandler handler = new RunWatchSpanHandler(watch);

        io.nemolens.handlers.MessageInfo message = new io.nemolens.handlers.MessageInfo(
                "m-1",
                io.nemolens.handlers.Signal.SPANS,
                io.nemolens.handlers.Encoding.PROTOBUF,
                "x",
                "otlp_spans",
                0,
                false,
                io.nemolens.handlers.record.RawOtlp.of(
                        io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest.getDefaultInstance()));
        handler.handle(new io.nemolens.handlers.SignalBatch<>(telemetry.step(RUN, 0, 1, 1500), message));

        assertThat(watch.failures()).isEqualTo(1);
    }
}
