package io.nemolens.archive.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.testing.MutableClock;
import java.time.Duration;
import java.util.List;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.junit.jupiter.api.Test;

/** The decisions of {@link CutPolicy} alone, from the numbers it sees: no file is written. */
class CutPolicyTest {

    private static final long MB = 1L << 20;

    private final MutableClock clock = MutableClock.at("2026-12-04T12:00:00Z");

    /** 1 MB row groups, 8 MB files of at most 1,000 rows, 60 s old at most, a 4 MB budget, 2 files open. */
    private final FileSettings settings =
            new FileSettings(CompressionCodecName.ZSTD, 1, MB, 8 * MB, 1_000, Duration.ofSeconds(60), 4 * MB, 2, 2);

    private final CutPolicy policy = new CutPolicy(settings, clock);

    @Test
    void aRowGroupIsDueAtItsTargetSize() {
        assertThat(policy.rowGroupDue(MB - 1)).isFalse();
        assertThat(policy.rowGroupDue(MB)).isTrue();
    }

    @Test
    void aFileIsFullBySizeOrByRowsSizeFirst() {
        assertThat(policy.full(8 * MB - 1, 999)).isNull();
        assertThat(policy.full(8 * MB, 10)).isEqualTo(CutPolicy.Reason.SIZE);
        assertThat(policy.full(10, 1_000)).isEqualTo(CutPolicy.Reason.ROWS);
        assertThat(policy.full(8 * MB, 1_000)).isEqualTo(CutPolicy.Reason.SIZE);
    }

    @Test
    void aFileIsCutAtMaxAge() {
        assertThat(policy.aged(Duration.ofSeconds(59))).isFalse();
        assertThat(policy.aged(Duration.ofSeconds(60))).isTrue();
        assertThat(policy.aged(Duration.ofSeconds(-5)))
                .as("a clock stepped back")
                .isFalse();
    }

    @Test
    void theBudgetIsExceededOnlyBeyondIt() {
        assertThat(policy.overBudget(4 * MB)).isFalse();
        assertThat(policy.overBudget(4 * MB + 1)).isTrue();
    }

    @Test
    void aWaitingWriterCutsAFileUnlessOneIsOnItsWayForEachWaiter() {
        assertThat(policy.cutForCap(0, 1)).isTrue();
        assertThat(policy.cutForCap(1, 1)).isFalse();
        assertThat(policy.cutForCap(1, 2)).isTrue();
        assertThat(policy.cutForCap(3, 2)).isFalse();
    }

    @Test
    void aPartitionIsHotWhenItsRowsWouldFillEightFilesWithinMaxAge() {
        // 8 files of 8 MB in 60 s: about 1,118 bytes a millisecond, judged over at least 5 s
        long opened = clock.millis();
        clock.advance(Duration.ofSeconds(10));
        assertThat(policy.hot(11 * MB, opened)).isTrue();
        assertThat(policy.hot(10 * MB, opened)).isFalse();
        clock.advance(Duration.ofSeconds(10));
        assertThat(policy.hot(11 * MB, opened))
                .as("the same rows over twice the time")
                .isFalse();
    }

    @Test
    void aPartitionThatSpeedsUpIsHotWithinTwoWindowsWhateverItsFilesAge() {
        // 8 files of 8 MB in 60 s: about 1,118 bytes a millisecond
        RateWindow window = new RateWindow(clock.millis());
        long rowBytes = 0;
        // two minutes at a tenth of that: not hot, and its average since the file opened stays low
        for (int second = 0; second < 120; second++) {
            clock.advance(Duration.ofSeconds(1));
            rowBytes += 110_000;
            assertThat(policy.hot(window, rowBytes))
                    .as("slow, second %d", second)
                    .isFalse();
        }
        // then at twice the rate: hot within two windows, where the file's average would take minutes
        int secondsToHot = -1;
        for (int second = 1; second <= 60 && secondsToHot < 0; second++) {
            clock.advance(Duration.ofSeconds(1));
            rowBytes += 2_300_000;
            if (policy.hot(window, rowBytes)) {
                secondsToHot = second;
            }
        }
        assertThat(secondsToHot).isBetween(1, (int) (2 * CutPolicy.RATE_WINDOW_MILLIS / 1000));
        assertThat(policy.hot(rowBytes, clock.millis() - 130_000))
                .as("judged since the file opened, it would not be hot yet")
                .isFalse();
    }

    @Test
    void aBurstInAWindowIsJudgedOverTheLeastAge() {
        RateWindow window = new RateWindow(clock.millis());
        clock.advance(Duration.ofSeconds(30));
        assertThat(policy.hot(window, MB)).isFalse(); // the window starts again here
        clock.advance(Duration.ofMillis(100));
        // 4 MB in 100 ms after the window started again: counted as 4 MB in 5 s, not hot
        assertThat(policy.hot(window, 5 * MB)).isFalse();
        assertThat(policy.hot(window, 8 * MB)).isTrue();
    }

    @Test
    void aBurstIsJudgedOverTheLeastAge() {
        long opened = clock.millis();
        clock.advance(Duration.ofMillis(100));
        // 1 MB in 100 ms is a rate of 10 MB/s, but it counts as 1 MB in 5 s
        assertThat(policy.hot(MB, opened)).isFalse();
        assertThat(policy.hot(6 * MB, opened)).isTrue();
        assertThat(policy.hot(6 * MB, opened + 60_000))
                .as("a clock stepped back")
                .isTrue();
    }

    @Test
    void theRowGroupCutForMemoryIsTheFileWhoseRowsExceedItsWriterMost() {
        OpenWriters writers = new OpenWriters(3);
        Slot small = slot(writers, 100_000, 150_000);
        Slot large = slot(writers, 100_000, 900_000);
        Slot wide = slot(writers, 800_000, 1_000_000);
        CutPolicy.MemoryCut cut = policy.forMemory(List.of(small, large, wide));
        assertThat(cut).isNotNull();
        assertThat(cut.slot()).isSameAs(large);
        assertThat(cut.excess()).isEqualTo(800_000);
    }

    @Test
    void noRowGroupIsCutForMemoryWhileNoFileExceedsItsWriter() {
        OpenWriters writers = new OpenWriters(2);
        assertThat(policy.forMemory(List.of(slot(writers, 100_000, 90_000), new Slot(0))))
                .isNull();
    }

    @Test
    void nothingIsCutForTheCapOrTheSpoolWithoutAnOpenFile() {
        assertThat(policy.forCap(List.of(new Slot(0), new Slot(0)))).isNull();
        assertThat(policy.forSpool(List.of(new Slot(0)))).isNull();
    }

    private static Slot slot(OpenWriters writers, long writerBytes, long bufferedBytes) {
        Slot slot = new Slot(0);
        OpenWriters.Counted counted = writers.opening(writerBytes);
        counted.buffered(bufferedBytes);
        slot.counted = counted;
        return slot;
    }
}
