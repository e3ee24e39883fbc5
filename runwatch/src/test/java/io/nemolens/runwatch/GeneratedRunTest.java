package io.nemolens.runwatch;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.decode.OtlpDecoder;
import io.nemolens.generator.TelemetryGenerator;
import io.nemolens.generator.TelemetryGenerator.Faults;
import io.nemolens.generator.TelemetryGenerator.Kind;
import io.nemolens.generator.TrainingRank;
import io.nemolens.handlers.Records;
import io.nemolens.testing.MutableClock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The run watch on the generator's runs, decoded as the service decodes them: one step of one rank per
 * spans message, the ranks taking turns, and a dcgm and a node-exporter scrape of a host beside every
 * eighth message.
 */
class GeneratedRunTest {

    private static final int RANKS = 64;
    private static final int SLOW = 17;

    private final OtlpDecoder decoder = new OtlpDecoder();
    private final RunWatch watch = new RunWatch(RunWatchSettings.DEFAULTS, MutableClock.at("2026-12-07T12:00:00Z"));

    private static TelemetryGenerator generator(Faults faults) {
        return new TelemetryGenerator(new TelemetryGenerator.Settings(
                List.of(
                        Kind.SPANS,
                        Kind.SPANS,
                        Kind.SPANS,
                        Kind.SPANS,
                        Kind.SPANS,
                        Kind.SPANS,
                        Kind.SPANS,
                        Kind.SPANS,
                        Kind.GPU,
                        Kind.NODE),
                "llama3-8b-pretrain-watch",
                RANKS,
                8,
                3,
                32,
                42,
                1_796_000_000_000_000_000L,
                faults));
    }

    /** Feeds one iteration of every rank (and the scrapes between), as the watch's handlers would be called. */
    private void iteration(TelemetryGenerator generator) {
        int spans = 0;
        while (spans < RANKS) {
            TelemetryGenerator.Batch batch = generator.next();
            Records records = decoder.decode(batch.signal(), batch.request().toByteArray(), null)
                    .records();
            watch.recordSpans(records.spans());
            watch.recordGpuSamples(records.gpuSamples());
            watch.recordNodeSamples(records.nodeSamples());
            if (batch.kind() == Kind.SPANS) {
                spans++;
            }
        }
    }

    @Test
    void theSlowRankIsFlaggedWithinTwentyIterationsWithItsThrottlingGpuAsEvidence() {
        TelemetryGenerator generator = generator(new Faults(SLOW, 1.3, 50, SLOW, null));
        List<StragglerChange> changes = new ArrayList<>();
        int flaggedAt = -1;
        for (int iteration = 1; iteration <= 100 && flaggedAt < 0; iteration++) {
            iteration(generator);
            for (StragglerChange change : watch.judge()) {
                changes.add(change);
                flaggedAt = iteration;
            }
        }

        assertThat(changes).singleElement().satisfies(c -> {
            assertThat(c.rank()).isEqualTo(SLOW);
            assertThat(c.straggler()).isTrue();
            assertThat(c.iteration()).isEqualTo(50);
            assertThat(c.host()).isEqualTo(TrainingRank.hostOf(SLOW));
            assertThat(c.gpu()).isEqualTo(SLOW % 8);
            assertThat(c.lag()).isBetween(0.15, 0.5);
        });
        assertThat(flaggedAt).as("the iteration at which it was flagged").isBetween(50, 70);
        Straggler straggler =
                watch.run("llama3-8b-pretrain-watch").orElseThrow().stragglers().get(0);
        assertThat(straggler.flaggedAt()).isEqualTo(flaggedAt);
        List<Evidence> unusual =
                straggler.evidence().stream().filter(Evidence::unusual).toList();
        assertThat(unusual)
                .extracting(Evidence::field)
                .contains(ScrapedField.SM_CLOCK, ScrapedField.CLOCK_THROTTLE_REASONS, ScrapedField.GPU_TEMP);
        assertThat(unusual).allSatisfy(e -> assertThat(e.subject()).isEqualTo("GPU 1 of dgx-a100-002"));
        assertThat(unusual)
                .filteredOn(e -> e.field() == ScrapedField.CLOCK_THROTTLE_REASONS)
                .singleElement()
                .extracting(Evidence::words)
                .asString()
                .startsWith("0x60 SW thermal slowdown, HW thermal slowdown");
    }

    @Test
    void aHostWithNetworkErrorsIsNamedAsItsRanksEvidence() {
        TelemetryGenerator generator = generator(new Faults(SLOW, 1.3, 5, null, SLOW));
        for (int iteration = 1; iteration <= 30; iteration++) {
            iteration(generator);
            watch.judge();
        }

        Straggler straggler =
                watch.run("llama3-8b-pretrain-watch").orElseThrow().stragglers().get(0);

        assertThat(straggler.evidence().stream().filter(Evidence::unusual))
                .extracting(Evidence::field)
                .containsExactlyInAnyOrder(
                        ScrapedField.TCP_RETRANSMITS,
                        ScrapedField.INFINIBAND_RECEIVE_ERRORS,
                        ScrapedField.INFINIBAND_SYMBOL_ERRORS);
    }

    @Test
    void aRunWithoutASlowRankFlagsNobodyOverAThousandIterations() {
        TelemetryGenerator generator = generator(Faults.NONE);
        List<StragglerChange> changes = new ArrayList<>();
        for (int iteration = 1; iteration <= 1000; iteration++) {
            iteration(generator);
            if (iteration % 5 == 0) {
                changes.addAll(watch.judge());
            }
        }

        assertThat(changes).isEmpty();
        RunSummary run = watch.runs().get(0);
        assertThat(run.lastIteration()).isEqualTo(1000);
        assertThat(run.ranks()).isEqualTo(RANKS);
        assertThat(run.stragglers()).isZero();
        assertThat(run.slowestLag())
                .as("the slowest rank's lag, well inside 15 %")
                .isLessThan(0.1);
    }
}
