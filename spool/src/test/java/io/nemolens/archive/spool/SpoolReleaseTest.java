package io.nemolens.archive.spool;

import static io.nemolens.archive.spool.SpoolFixtures.ENTRY_BYTES;
import static io.nemolens.archive.spool.SpoolFixtures.files;
import static io.nemolens.archive.spool.SpoolFixtures.payload;
import static io.nemolens.archive.spool.SpoolFixtures.readAll;
import static io.nemolens.archive.spool.SpoolFixtures.segmentName;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nemolens.archive.spool.SpoolFixtures.Read;
import io.nemolens.testing.MutableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Released entries free their segments, after the removal listener agreed; seqs never come back. */
class SpoolReleaseTest {

    private static final long SEGMENT_BYTES = 2 * ENTRY_BYTES;

    @TempDir
    Path dir;

    private final MutableClock clock = new MutableClock(Instant.ofEpochMilli(1_700_000_000_000L));
    private final List<String> removals = new CopyOnWriteArrayList<>();
    private Spool spool;

    private Spool open(long maxBytes) throws IOException {
        spool = Spool.open(dir, new SpoolOptions(maxBytes, SEGMENT_BYTES), clock);
        return spool;
    }

    @AfterEach
    void close() {
        if (spool != null) {
            spool.close();
        }
    }

    private void appendDurably(int from, int to) {
        for (int i = from; i < to; i++) {
            spool.append(payload(i)).durable().join();
        }
    }

    private void release(long from, long to) {
        for (long seq = from; seq <= to; seq++) {
            spool.release(seq);
        }
    }

    /** Records each removal, with whether the file was still there when the listener was told. */
    private void recordRemovals() {
        spool.setRemovalListener((first, last) ->
                removals.add(first + "-" + last + (Files.exists(dir.resolve(segmentName(first))) ? " present" : "")));
    }

    @Test
    void deletesASealedSegmentOnceAllItsEntriesAreReleasedAfterTellingTheListener() throws IOException {
        open(1 << 20);
        recordRemovals();
        appendDurably(0, 5); // segments 0 (0, 1), 2 (2, 3), 4 (4)

        release(0, 0);
        release(2, 3);
        await().atMost(Duration.ofSeconds(10)).until(() -> !Files.exists(dir.resolve(segmentName(2))));

        assertThat(removals).containsExactly("2-3 present");
        assertThat(files(dir, ".log")).containsExactly(segmentName(0), segmentName(4));
        SpoolStatus status = spool.status();
        assertThat(status.segments()).isEqualTo(2);
        assertThat(status.entries()).isEqualTo(2);
        assertThat(status.bytes()).isEqualTo(3 * ENTRY_BYTES);
        assertThat(readAll(spool)).extracting(Read::seq).containsExactly(0L, 1L, 4L);
        assertThat(dir.resolve("next-seq")).as("segment 4 carries the seqs").doesNotExist();
    }

    @Test
    void releaseIsIdempotentAndTracksTheOldestUnreleasedEntry() throws IOException {
        open(1 << 20);
        appendDurably(0, 1);
        clock.advance(Duration.ofSeconds(1));
        appendDurably(1, 3);

        spool.release(0);
        spool.release(0);
        assertThat(spool.status().entries()).isEqualTo(2);
        assertThat(spool.status().oldestUnreleasedAppendedAtMillis()).isEqualTo(clock.millis());

        release(1, 2);
        assertThat(spool.status().entries()).isZero();
        assertThat(spool.status().oldestUnreleasedAppendedAtMillis()).isZero();
        assertThatThrownBy(() -> spool.release(3)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aListenerThatThrowsKeepsTheSegmentUntilItAgrees() throws IOException {
        open(1 << 20);
        AtomicBoolean refuse = new AtomicBoolean(true);
        spool.setRemovalListener((first, last) -> {
            removals.add(first + "-" + last);
            if (refuse.get()) {
                throw new IOException("not in Parquet yet");
            }
        });
        appendDurably(0, 3);

        release(0, 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> removals.size() == 1);
        assertThat(dir.resolve(segmentName(0))).exists();
        assertThat(spool.status().segments()).isEqualTo(2);

        refuse.set(false);
        clock.advance(Duration.ofSeconds(2));
        await().atMost(Duration.ofSeconds(10)).until(() -> !Files.exists(dir.resolve(segmentName(0))));
        assertThat(removals).containsExactly("0-1", "0-1");
        // the status counts the segment out right after its file is gone, on the deleting thread
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(spool.status().segments()).isEqualTo(1));
    }

    @Test
    void seqsNeverRepeatOnceEverySegmentIsDeleted() throws IOException {
        open(1 << 20);
        appendDurably(0, 4); // segments 0 (0, 1) and 2 (2, 3), both full and sealed
        release(0, 3);
        await().atMost(Duration.ofSeconds(10)).until(() -> files(dir, ".log").isEmpty());
        spool.close();
        assertThat(dir.resolve("next-seq")).hasContent("4\n");

        open(1 << 20);
        assertThat(spool.recovery().segments()).isZero();
        assertThat(spool.durableSeq()).isEqualTo(3);
        Appended next = spool.append(payload(4));
        next.durable().join();
        assertThat(next.seq()).isEqualTo(4);
        assertThat(readAll(spool)).extracting(Read::seq).containsExactly(4L);
    }

    @Test
    void aQuietFullyReleasedActiveSegmentIsSealedAndDeleted() throws IOException {
        open(1 << 20);
        recordRemovals();
        appendDurably(0, 1);
        spool.release(0);
        assertThat(spool.status().segments()).isEqualTo(1);

        clock.advance(Duration.ofSeconds(6));
        await().atMost(Duration.ofSeconds(10)).until(() -> spool.status().segments() == 0);

        assertThat(removals).containsExactly("0-0 present");
        assertThat(files(dir, ".log")).isEmpty();
        assertThat(spool.append(payload(1)).seq()).isEqualTo(1);
    }

    @Test
    void aFullSpoolRefusesAppendsUntilReleasesFreeSpace() throws IOException {
        open(5 * ENTRY_BYTES);
        appendDurably(0, 5);

        assertThatThrownBy(() -> spool.append(payload(5)))
                .isInstanceOf(SpoolFullException.class)
                .hasMessageContaining(5 * ENTRY_BYTES + " of " + 5 * ENTRY_BYTES + " bytes");
        assertThat(spool.status().full()).isTrue();

        release(0, 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> !spool.status().full());
        assertThat(spool.status().bytes()).isEqualTo(3 * ENTRY_BYTES);
        Appended next = spool.append(payload(5));
        next.durable().join();
        assertThat(next.seq()).isEqualTo(5);
    }

    @Test
    void aCloseDeletesTheSegmentsWhoseEntriesAreAllReleasedTheActiveOneIncluded() throws IOException {
        open(1 << 20);
        recordRemovals();
        appendDurably(0, 7); // segments 0 (0, 1), 2 (2, 3), 4 (4, 5), 6 (6, active)
        release(0, 3);
        release(6, 6);
        // at once, before the writer's next housekeeping: what a stop does right after its last commit
        spool.close();

        assertThat(files(dir, ".log"))
                .as("only the segment with entries not yet released stays")
                .containsExactly(segmentName(4));
        assertThat(removals).contains("6-6 present");

        spool = Spool.open(dir, new SpoolOptions(1 << 20, SEGMENT_BYTES), clock);
        assertThat(readAll(spool)).extracting(Read::seq).containsExactly(4L, 5L);
        assertThat(spool.append(payload(7)).seq()).as("seqs never come back").isEqualTo(7L);
    }
}
