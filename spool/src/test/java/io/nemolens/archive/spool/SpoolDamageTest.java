package io.nemolens.archive.spool;

import static io.nemolens.archive.spool.SpoolFixtures.ENTRY_BYTES;
import static io.nemolens.archive.spool.SpoolFixtures.files;
import static io.nemolens.archive.spool.SpoolFixtures.flipByte;
import static io.nemolens.archive.spool.SpoolFixtures.payload;
import static io.nemolens.archive.spool.SpoolFixtures.readAll;
import static io.nemolens.archive.spool.SpoolFixtures.segmentName;
import static io.nemolens.archive.spool.SpoolFixtures.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import io.nemolens.archive.spool.SpoolFixtures.Read;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Damage inside the spool loses only the entries it hit: they are kept aside and reported, every valid entry
 * after them (in the same segment and in later ones) is recovered; a torn tail is cut and counts as no loss.
 * The entries are {@link SpoolFixtures#ENTRY_BYTES} each: a 24-byte header ({@code [length][CRC][seq][time]})
 * and a 10-byte payload.
 */
class SpoolDamageTest {

    private static final int HEADER = EntryFormat.HEADER_BYTES;

    @TempDir
    Path dir;

    private Spool open(int entriesPerSegment) throws IOException {
        return Spool.open(dir, new SpoolOptions(1 << 20, entriesPerSegment * ENTRY_BYTES), Clock.systemUTC());
    }

    /** Appends {@code payload(0)} to {@code payload(entries - 1)}, seqs 0 to entries - 1. */
    private void appendAndClose(int entries, int entriesPerSegment) throws IOException {
        try (Spool spool = open(entriesPerSegment)) {
            for (int i = 0; i < entries; i++) {
                spool.append(payload(i));
            }
        }
    }

    /** Where entry {@code seq} starts in its segment file, which begins at {@code segmentFirstSeq}. */
    private Path segment(long segmentFirstSeq) {
        return dir.resolve(segmentName(segmentFirstSeq));
    }

    private static long at(long seq, long segmentFirstSeq) {
        return (seq - segmentFirstSeq) * ENTRY_BYTES;
    }

    private Path keptAside(long segmentFirstSeq, long offset, long firstLost, long lastLost) {
        return dir.resolve(
                String.format("segment-%020d-at-%d-seqs-%d-%d.corrupt", segmentFirstSeq, offset, firstLost, lastLost));
    }

    private static Long[] seqsBut(int entries, long... lost) {
        return LongStream.range(0, entries)
                .filter(s -> LongStream.of(lost).noneMatch(l -> l == s))
                .boxed()
                .toArray(Long[]::new);
    }

    private static List<Read> readDamaged(Spool spool, Damage damage) throws IOException {
        List<Read> read = new ArrayList<>();
        spool.readDamaged(
                damage, (seq, at, payload) -> read.add(new Read(seq, at, new String(payload, StandardCharsets.UTF_8))));
        return read;
    }

    @Test
    void aFlippedByteInTheMiddleOfTheLastSegmentLosesThatEntryOnlyUntilAnOperatorDeletesItsKeptAsideBytes()
            throws IOException {
        appendAndClose(12, 4); // segments 0 (0 to 3), 4 (4 to 7), 8 (8 to 11)
        flipByte(segment(8), at(9, 8) + HEADER + 5); // in seq 9's payload

        Path kept = keptAside(8, ENTRY_BYTES, 9, 9);
        try (Spool spool = open(4)) {
            Recovery recovery = spool.recovery();
            assertThat(readAll(spool)).extracting(Read::seq).containsExactly(seqsBut(12, 9));
            assertThat(recovery.damaged())
                    .containsExactly(new Damage(
                            segmentName(8),
                            ENTRY_BYTES,
                            ENTRY_BYTES,
                            9,
                            9,
                            "invalid entry at offset " + ENTRY_BYTES + ": CRC mismatch",
                            kept));
            assertThat(recovery.damagedEntries()).isEqualTo(1);
            assertThat(recovery.damagedBytes()).isEqualTo(ENTRY_BYTES);
            assertThat(recovery.tornBytesCut()).as("damage is no torn tail").isZero();
            assertThat(files(dir, ".log"))
                    .as("the entries after the damage in a segment of their own")
                    .containsExactly(segmentName(0), segmentName(4), segmentName(8), segmentName(10));
            assertThat(segment(8)).hasSize(ENTRY_BYTES);
            assertThat(kept).hasSize(ENTRY_BYTES);
            assertThat(spool.damage()).isEqualTo(new SpoolDamage(1, 1, ENTRY_BYTES));
            assertThat(readDamaged(spool, recovery.damaged().get(0)))
                    .as("its header is intact: the damaged entry reads back as found")
                    .singleElement()
                    .satisfies(r -> {
                        assertThat(r.seq()).isEqualTo(9);
                        assertThat(r.text()).isNotEqualTo(text(9)).startsWith("entry");
                    });

            Appended next = spool.append(payload(12));
            next.durable().join();
            assertThat(next.seq()).isEqualTo(12);

            Files.delete(kept); // the operator acknowledges the loss
            await().atMost(Duration.ofSeconds(5)).until(() -> spool.damage().equals(SpoolDamage.NONE));
        }
        try (Spool again = open(4)) {
            assertThat(again.recovery().damaged()).isEmpty();
            assertThat(again.damage()).isEqualTo(SpoolDamage.NONE);
            assertThat(readAll(again)).extracting(Read::seq).containsExactly(seqsBut(13, 9));
        }
    }

    @Test
    void aFlippedByteInAnEarlierSegmentLosesThatEntryOnly() throws IOException {
        appendAndClose(12, 4);
        flipByte(segment(0), at(1, 0) + HEADER + 2); // in seq 1's payload

        try (Spool spool = open(4)) {
            assertThat(readAll(spool)).extracting(Read::seq).containsExactly(seqsBut(12, 1));
            assertThat(spool.recovery().damaged()).singleElement().satisfies(d -> {
                assertThat(d.segment()).isEqualTo(segmentName(0));
                assertThat(d.firstSeq()).isEqualTo(1);
                assertThat(d.lastSeq()).isEqualTo(1);
                assertThat(d.keptIn()).isEqualTo(keptAside(0, ENTRY_BYTES, 1, 1));
            });
            assertThat(files(dir, ".log"))
                    .containsExactly(segmentName(0), segmentName(2), segmentName(4), segmentName(8));
            assertThat(spool.recovery().entries()).isEqualTo(11);
        }
    }

    @ParameterizedTest(name = "a flipped byte at {0} of an entry ({1})")
    @CsvSource({
        "2, length: it no longer fits, false",
        "3, length: it still fits, false",
        "5, CRC, true",
        "12, seq, false",
        "20, time, true",
        "24, payload: first byte, true",
        "33, payload: last byte, true"
    })
    void aFlippedByteInAnEntrysHeaderOrBodyLosesThatEntryOnly(int offsetInEntry, String field, boolean readable)
            throws IOException {
        appendAndClose(12, 4);
        flipByte(segment(4), at(5, 4) + offsetInEntry);

        try (Spool spool = open(4)) {
            assertThat(readAll(spool)).as(field).extracting(Read::seq).containsExactly(seqsBut(12, 5));
            Damage damage = spool.recovery().damaged().get(0);
            assertThat(spool.recovery().damaged()).hasSize(1);
            assertThat(damage.offset()).isEqualTo(ENTRY_BYTES);
            assertThat(damage.bytes()).isEqualTo(ENTRY_BYTES);
            assertThat(damage.entries()).isEqualTo(1);
            assertThat(readDamaged(spool, damage))
                    .as("the damaged entry is readable where its header still frames it (%s)", field)
                    .extracting(Read::seq)
                    .containsExactlyElementsOf(readable ? List.of(5L) : List.of());
        }
    }

    @Test
    void twoAdjacentDamagedEntriesLoseThoseTwoOnly() throws IOException {
        appendAndClose(12, 4);
        flipByte(segment(4), at(5, 4) + 12); // seq 5's seq field
        flipByte(segment(4), at(6, 4) + HEADER + 4); // seq 6's payload

        try (Spool spool = open(4)) {
            assertThat(readAll(spool)).extracting(Read::seq).containsExactly(seqsBut(12, 5, 6));
            assertThat(spool.recovery().damaged()).singleElement().satisfies(d -> {
                assertThat(d.offset()).isEqualTo(ENTRY_BYTES);
                assertThat(d.bytes()).isEqualTo(2 * ENTRY_BYTES);
                assertThat(d.firstSeq()).isEqualTo(5);
                assertThat(d.lastSeq()).isEqualTo(6);
                assertThat(readDamaged(spool, d))
                        .as("the first one's header is damaged: nothing frames what follows")
                        .isEmpty();
            });
            assertThat(spool.damage()).isEqualTo(new SpoolDamage(1, 2, 2 * ENTRY_BYTES));
        }
    }

    @Test
    void twoDamagesInOneSegmentEachLoseTheirEntryOnly() throws IOException {
        appendAndClose(12, 6); // segments 0 (0 to 5), 6 (6 to 11)
        flipByte(segment(0), at(1, 0) + HEADER + 1);
        flipByte(segment(0), at(3, 0) + 8);

        try (Spool spool = open(6)) {
            assertThat(readAll(spool)).extracting(Read::seq).containsExactly(seqsBut(12, 1, 3));
            assertThat(spool.recovery().damaged())
                    .extracting(Damage::firstSeq, Damage::lastSeq, Damage::offset)
                    .containsExactly(tuple(1L, 1L, ENTRY_BYTES), tuple(3L, 3L, 3 * ENTRY_BYTES));
            assertThat(files(dir, ".log"))
                    .containsExactly(segmentName(0), segmentName(2), segmentName(4), segmentName(6));
        }
    }

    @Test
    void aTornTailIsCutAndCountsAsNoLoss() throws IOException {
        appendAndClose(6, 4); // segments 0 (0 to 3), 4 (4, 5)
        try (RandomAccessFile file = new RandomAccessFile(segment(4).toFile(), "rw")) {
            file.setLength(at(5, 4) + 20); // in the middle of seq 5's header: a crash during its append
        }

        try (Spool spool = open(4)) {
            assertThat(spool.recovery().tornBytesCut()).isEqualTo(20);
            assertThat(spool.recovery().damaged()).isEmpty();
            assertThat(spool.damage()).isEqualTo(SpoolDamage.NONE);
            assertThat(files(dir, ".corrupt")).isEmpty();
            assertThat(readAll(spool)).extracting(Read::seq).containsExactly(0L, 1L, 2L, 3L, 4L);
            assertThat(spool.append(payload(5)).seq())
                    .as("the torn append was never durable: its seq is given out again")
                    .isEqualTo(5);
        }
    }

    @Test
    void zerosAfterTheLastEntryAreATornTailToo() throws IOException {
        appendAndClose(6, 4);
        // a crash after the file grew but before its data reached the disk
        Files.write(segment(4), new byte[3 * (int) ENTRY_BYTES], StandardOpenOption.APPEND);

        try (Spool spool = open(4)) {
            assertThat(spool.recovery().tornBytesCut()).isEqualTo(3 * ENTRY_BYTES);
            assertThat(spool.recovery().damaged()).isEmpty();
            assertThat(readAll(spool)).extracting(Read::seq).containsExactly(seqsBut(6));
        }
    }

    @Test
    void damageAtTheVeryStartOfASegmentLosesItsFirstEntryOnly() throws IOException {
        appendAndClose(12, 4);
        flipByte(segment(4), 9); // seq 4's seq field

        try (Spool spool = open(4)) {
            assertThat(readAll(spool)).extracting(Read::seq).containsExactly(seqsBut(12, 4));
            assertThat(spool.recovery().damaged()).singleElement().satisfies(d -> {
                assertThat(d.offset()).isZero();
                assertThat(d.firstSeq()).isEqualTo(4);
                assertThat(d.lastSeq()).isEqualTo(4);
                assertThat(d.keptIn()).isEqualTo(keptAside(4, 0, 4, 4));
            });
            assertThat(files(dir, ".log"))
                    .as("nothing valid precedes the damage: the segment goes, its valid entries move on")
                    .containsExactly(segmentName(0), segmentName(5), segmentName(8));
        }
    }

    @Test
    void damageAtTheVeryStartOfTheFirstSegmentLosesSeqZeroOnly() throws IOException {
        appendAndClose(8, 4);
        flipByte(segment(0), 1); // seq 0's length

        try (Spool spool = open(4)) {
            assertThat(readAll(spool)).extracting(Read::seq).containsExactly(seqsBut(8, 0));
            assertThat(spool.recovery().damaged()).extracting(Damage::entries).containsExactly(1L);
            assertThat(spool.recovery().firstSeq()).isEqualTo(1);
        }
    }

    @Test
    void anEarlierSegmentWithNothingValidGoesAndLosesTheSeqsUpToTheNextSegment() throws IOException {
        appendAndClose(12, 4);
        for (long seq = 4; seq < 8; seq++) {
            flipByte(segment(4), at(seq, 4) + HEADER + 7);
        }

        try (Spool spool = open(4)) {
            assertThat(readAll(spool)).extracting(Read::seq).containsExactly(seqsBut(12, 4, 5, 6, 7));
            assertThat(spool.recovery().damaged()).singleElement().satisfies(d -> {
                assertThat(d.firstSeq()).isEqualTo(4);
                assertThat(d.lastSeq()).as("up to the next segment's first seq").isEqualTo(7);
                assertThat(d.bytes()).isEqualTo(4 * ENTRY_BYTES);
            });
            assertThat(segment(4)).doesNotExist();
        }
    }

    @Test
    void resyncPassesOverAnEntryInsideADamagedPayloadWhoseSeqDoesNotFit() throws IOException {
        ByteBuffer inner = ByteBuffer.allocate((int) ENTRY_BYTES);
        EntryFormat.putHeader(inner, 1000, 0, payload(9), EntryFormat.NO_BYTES);
        inner.put(payload(9));
        try (Spool spool = open(100)) {
            spool.append(payload(0));
            spool.append(inner.array()); // seq 1: its payload is a whole, valid entry of seq 1000
            spool.append(payload(2));
            spool.append(payload(3));
        }
        flipByte(segment(0), ENTRY_BYTES + 12); // seq 1's seq field

        try (Spool spool = open(100)) {
            assertThat(readAll(spool)).extracting(Read::seq).containsExactly(0L, 2L, 3L);
            assertThat(spool.recovery().damaged()).singleElement().satisfies(d -> {
                assertThat(d.bytes()).isEqualTo(HEADER + ENTRY_BYTES);
                assertThat(d.entries()).isEqualTo(1);
            });
        }
    }

    @Test
    void aCrashDuringRecoveryLosesNothingMoreAndDuplicatesNothing() throws IOException {
        appendAndClose(12, 6); // segments 0 (0 to 5), 6 (6 to 11)
        flipByte(segment(0), at(1, 0) + HEADER + 1);
        flipByte(segment(0), at(3, 0) + HEADER + 1);
        byte[] damaged = Files.readAllBytes(segment(0));
        try (Spool spool = open(6)) {
            assertThat(readAll(spool)).extracting(Read::seq).containsExactly(seqsBut(12, 1, 3));
        }

        // a crash after the latest run (4, 5) was copied out, before the one of seq 2 and the cut
        Files.write(segment(0), damaged);
        Files.delete(segment(2));
        try (Spool spool = open(6)) {
            assertThat(readAll(spool)).extracting(Read::seq).containsExactly(seqsBut(12, 1, 3));
            assertThat(spool.recovery().damaged())
                    .extracting(Damage::firstSeq, Damage::lastSeq)
                    .containsExactly(tuple(1L, 1L), tuple(3L, 3L));
        }

        // a crash after every run was copied out, before the cut
        Files.write(segment(0), damaged);
        try (Spool spool = open(6)) {
            assertThat(readAll(spool)).extracting(Read::seq).containsExactly(seqsBut(12, 1, 3));
            assertThat(spool.recovery().damaged())
                    .as("the rest of the segment is damage, with the seqs the copied run does not hold")
                    .extracting(Damage::firstSeq, Damage::lastSeq, Damage::bytes)
                    .containsExactly(tuple(1L, 1L, 5 * ENTRY_BYTES));
        }
        assertThat(files(dir, ".corrupt"))
                .as("kept aside under the same names each time")
                .containsExactlyInAnyOrder(
                        keptAside(0, ENTRY_BYTES, 1, 1).getFileName().toString(),
                        keptAside(0, 3 * ENTRY_BYTES, 3, 3).getFileName().toString());
    }
}
