package io.nemolens.archive.spool;

import static io.nemolens.archive.spool.SpoolFixtures.ENTRY_BYTES;
import static io.nemolens.archive.spool.SpoolFixtures.files;
import static io.nemolens.archive.spool.SpoolFixtures.payload;
import static io.nemolens.archive.spool.SpoolFixtures.readAll;
import static io.nemolens.archive.spool.SpoolFixtures.segmentName;
import static io.nemolens.archive.spool.SpoolFixtures.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nemolens.archive.spool.SpoolFixtures.Read;
import io.nemolens.testing.MutableClock;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Appending, reading back, reopening, closing and the folder's lock. */
class SpoolTest {

    /** Two entries a segment: the second fills it, and it is sealed. */
    private static final SpoolOptions TWO_A_SEGMENT = new SpoolOptions(1 << 20, 2 * ENTRY_BYTES);

    @TempDir
    Path tmp;

    private final MutableClock clock = new MutableClock(Instant.ofEpochMilli(1_700_000_000_000L));

    private Spool open() throws IOException {
        return Spool.open(tmp.resolve("spool"), TWO_A_SEGMENT, clock);
    }

    private static List<Appended> appendAll(Spool spool, int from, int to) {
        List<Appended> appended = new ArrayList<>();
        for (int i = from; i < to; i++) {
            appended.add(spool.append(payload(i)));
        }
        return appended;
    }

    @Test
    void readsBackWhatWasAppendedInSeqOrder() throws IOException {
        try (Spool spool = open()) {
            List<Appended> appended = appendAll(spool, 0, 5);
            appended.forEach(a -> a.durable().join());

            assertThat(appended).extracting(Appended::seq).containsExactly(0L, 1L, 2L, 3L, 4L);
            assertThat(spool.durableSeq()).isEqualTo(4);
            assertThat(readAll(spool))
                    .containsExactly(IntStream.range(0, 5)
                            .mapToObj(i -> new Read(i, clock.millis(), text(i)))
                            .toArray(Read[]::new));
            assertThat(SpoolFixtures.read(spool, 1, 3)).extracting(Read::seq).containsExactly(1L, 2L, 3L);
            assertThat(SpoolFixtures.read(spool, 3, 100)).extracting(Read::seq).containsExactly(3L, 4L);
            assertThat(SpoolFixtures.read(spool, 3, 2)).isEmpty();
        }
    }

    @Test
    void rollsOverToSegmentsNamedByTheirFirstSeq() throws IOException {
        try (Spool spool = open()) {
            appendAll(spool, 0, 5).forEach(a -> a.durable().join());

            assertThat(files(tmp.resolve("spool"), ".log"))
                    .containsExactly(segmentName(0), segmentName(2), segmentName(4));
            SpoolStatus status = spool.status();
            assertThat(status.bytes()).isEqualTo(5 * ENTRY_BYTES);
            assertThat(status.entries()).isEqualTo(5);
            assertThat(status.segments()).isEqualTo(3);
            assertThat(status.oldestUnreleasedAppendedAtMillis()).isEqualTo(clock.millis());
            assertThat(status.writable()).isTrue();
            assertThat(status.problem()).isNull();
            assertThat(status.full()).isFalse();
        }
    }

    @Test
    void anEmptySpoolStartsAtSeqZero() throws IOException {
        try (Spool spool = open()) {
            assertThat(spool.durableSeq()).isEqualTo(-1);
            assertThat(spool.recovery()).isEqualTo(new Recovery(0, 0, 0, -1, -1, 0, List.of()));
            assertThat(readAll(spool)).isEmpty();
            assertThat(spool.append(payload(0)).seq()).isZero();
        }
    }

    @Test
    void seqsContinueAfterReopening() throws IOException {
        try (Spool spool = open()) {
            appendAll(spool, 0, 5).forEach(a -> a.durable().join());
        }
        try (Spool spool = open()) {
            assertThat(spool.recovery()).isEqualTo(new Recovery(3, 5, 5 * ENTRY_BYTES, 0, 4, 0, List.of()));
            assertThat(spool.durableSeq()).isEqualTo(4);
            Appended next = spool.append(payload(5));
            next.durable().join();

            assertThat(next.seq()).isEqualTo(5);
            assertThat(readAll(spool))
                    .extracting(Read::text)
                    .containsExactly(text(0), text(1), text(2), text(3), text(4), text(5));
        }
    }

    @Test
    void closeMakesQueuedAppendsDurable() throws IOException {
        List<Appended> appended;
        try (Spool spool = open()) {
            appended = appendAll(spool, 0, 500);
        }

        assertThat(appended).allSatisfy(a -> assertThat(a.durable()).isCompleted());
        try (Spool spool = open()) {
            assertThat(spool.recovery().entries()).isEqualTo(500);
            assertThat(readAll(spool))
                    .extracting(Read::seq)
                    .containsExactlyElementsOf(
                            appended.stream().map(Appended::seq).toList());
        }
    }

    @Test
    void aClosedSpoolRefusesAppends() throws IOException {
        Spool spool = open();
        spool.close();
        spool.close();

        assertThatThrownBy(() -> spool.append(payload(0)))
                .isInstanceOf(SpoolUnavailableException.class)
                .hasMessageContaining("closed");
        assertThat(spool.status().writable()).isFalse();
        assertThat(spool.status().problem()).contains("closed");
    }

    @Test
    void aSecondOpenOfTheFolderFailsAtOnce() throws IOException {
        Path dir = tmp.resolve("spool");
        try (Spool spool = open()) {
            assertThatThrownBy(() -> Spool.open(dir, TWO_A_SEGMENT, Clock.systemUTC()))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining(dir.toAbsolutePath().toString())
                    .hasMessageContaining("in use");
            assertThat(spool.append(payload(0)).durable().join()).isNull();
        }
        try (Spool again = open()) {
            assertThat(again.recovery().entries()).isEqualTo(1);
        }
    }

    @Test
    void aPayloadThatCouldNeverFitIsRefused() throws IOException {
        try (Spool spool = Spool.open(tmp.resolve("spool"), new SpoolOptions(100, 100), Clock.systemUTC())) {
            assertThatThrownBy(() -> spool.append(new byte[100]))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("never fits");
            assertThat(spool.append(new byte[76]).durable().join()).isNull();
        }
    }

    @Test
    void anEmptyPayloadIsAnEntry() throws IOException {
        try (Spool spool = open()) {
            spool.append(new byte[0]).durable().join();

            assertThat(readAll(spool)).extracting(Read::text).containsExactly("");
        }
    }

    @Test
    void aPayloadInTwoPartsReadsBackAsOneAndSurvivesReopening() throws IOException {
        byte[] head = "head|".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        // larger than the writer's 1 MiB buffer: the tail is written across several flushes
        byte[] tail = new byte[(1 << 20) + 12_345];
        for (int i = 0; i < tail.length; i++) {
            tail[i] = (byte) ('a' + i % 26);
        }
        SpoolOptions roomy = new SpoolOptions(8 << 20, 4 << 20);
        try (Spool spool = Spool.open(tmp.resolve("spool"), roomy, clock)) {
            spool.append(head, tail).durable().join();
            spool.append(new byte[0], head).durable().join();
        }
        // reopened: recovery checks every entry's length and checksum, so a wrong one would be cut here
        try (Spool spool = Spool.open(tmp.resolve("spool"), roomy, clock)) {
            assertThat(spool.recovery().tornBytesCut()).isZero();
            assertThat(spool.recovery().damaged()).isEmpty();
            List<Read> read = readAll(spool);
            assertThat(read).extracting(Read::seq).containsExactly(0L, 1L);
            assertThat(read.get(0).text())
                    .isEqualTo("head|" + new String(tail, java.nio.charset.StandardCharsets.UTF_8));
            assertThat(read.get(1).text()).isEqualTo("head|");
        }
    }

    @Test
    void theSettledListenerIsToldOnceAnAppendIsDurable() throws Exception {
        try (Spool spool = open()) {
            java.util.concurrent.CompletableFuture<Long> durableWhenTold =
                    new java.util.concurrent.CompletableFuture<>();
            spool.setSettledListener(() -> durableWhenTold.complete(spool.durableSeq()));
            long seq = spool.append(payload(1)).seq();
            assertThat(durableWhenTold.get(30, java.util.concurrent.TimeUnit.SECONDS))
                    .isGreaterThanOrEqualTo(seq);
        }
    }
}
