package io.nemolens.archive.spool;

import static io.nemolens.archive.spool.SpoolFixtures.ENTRY_BYTES;
import static io.nemolens.archive.spool.SpoolFixtures.files;
import static io.nemolens.archive.spool.SpoolFixtures.flipByte;
import static io.nemolens.archive.spool.SpoolFixtures.payload;
import static io.nemolens.archive.spool.SpoolFixtures.readAll;
import static io.nemolens.archive.spool.SpoolFixtures.segmentName;
import static io.nemolens.archive.spool.SpoolFixtures.text;
import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.archive.spool.SpoolFixtures.Read;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What open finds: a torn tail is cut, damage elsewhere is reported and kept aside (more in {@link SpoolDamageTest}). */
class SpoolRecoveryTest {

    @TempDir
    Path dir;

    private Spool open(long segmentBytes) throws IOException {
        return Spool.open(dir, new SpoolOptions(1 << 20, segmentBytes), Clock.systemUTC());
    }

    private void appendAndClose(int entries, long segmentBytes) throws IOException {
        try (Spool spool = open(segmentBytes)) {
            for (int i = 0; i < entries; i++) {
                spool.append(payload(i));
            }
        }
    }

    @Test
    void cutsATornTailAndGivesItsSeqsOutAgain() throws IOException {
        appendAndClose(5, 1 << 16);
        Path segment = dir.resolve(segmentName(0));
        try (RandomAccessFile file = new RandomAccessFile(segment.toFile(), "rw")) {
            file.setLength(5 * ENTRY_BYTES - 7); // in the middle of the last entry's payload
        }

        try (Spool spool = open(1 << 16)) {
            Recovery recovery = spool.recovery();
            assertThat(recovery.entries()).isEqualTo(4);
            assertThat(recovery.lastSeq()).isEqualTo(3);
            assertThat(recovery.tornBytesCut()).isEqualTo(ENTRY_BYTES - 7);
            assertThat(recovery.damaged()).isEmpty();
            assertThat(Files.size(segment)).isEqualTo(4 * ENTRY_BYTES);
            assertThat(readAll(spool)).extracting(Read::text).containsExactly(text(0), text(1), text(2), text(3));

            Appended next = spool.append(payload(9));
            next.durable().join();
            assertThat(next.seq()).isEqualTo(4);
            assertThat(readAll(spool)).extracting(Read::seq).containsExactly(0L, 1L, 2L, 3L, 4L);
        }
    }

    @Test
    void cutsATornHeaderAndGarbageAfterTheLastEntry() throws IOException {
        appendAndClose(2, 1 << 16);
        Path segment = dir.resolve(segmentName(0));
        Files.write(segment, new byte[] {0, 0, 0, 5, 1, 2, 3}, StandardOpenOption.APPEND);

        try (Spool spool = open(1 << 16)) {
            assertThat(spool.recovery().tornBytesCut()).isEqualTo(7);
            assertThat(spool.recovery().entries()).isEqualTo(2);
            assertThat(Files.size(segment)).isEqualTo(2 * ENTRY_BYTES);
        }
    }

    @Test
    void aLastSegmentWithNothingValidIsDeleted() throws IOException {
        appendAndClose(3, 2 * ENTRY_BYTES);
        Path last = dir.resolve(segmentName(2));
        flipByte(last, ENTRY_BYTES - 1);

        try (Spool spool = open(2 * ENTRY_BYTES)) {
            assertThat(spool.recovery().tornBytesCut()).isEqualTo(ENTRY_BYTES);
            assertThat(spool.recovery().segments()).isEqualTo(1);
            assertThat(last).doesNotExist();
            assertThat(spool.append(payload(7)).seq()).isEqualTo(2);
        }
    }

    @Test
    void damageInTheLastEntryOfAnEarlierSegmentLosesThatEntryOnlyAndKeepsItsBytesAside() throws IOException {
        appendAndClose(6, 2 * ENTRY_BYTES); // segments 0 (0, 1), 2 (2, 3), 4 (4, 5)
        Path first = dir.resolve(segmentName(0));
        byte[] original = Files.readAllBytes(first);
        flipByte(first, ENTRY_BYTES + 24 + 3); // in seq 1's payload

        Path setAside = dir.resolve(String.format("segment-%020d-at-%d-seqs-1-1.corrupt", 0, ENTRY_BYTES));
        try (Spool spool = open(2 * ENTRY_BYTES)) {
            Recovery recovery = spool.recovery();
            assertThat(recovery.damaged())
                    .containsExactly(new Damage(
                            segmentName(0),
                            ENTRY_BYTES,
                            ENTRY_BYTES,
                            1,
                            1,
                            "invalid entry at offset " + ENTRY_BYTES + ": CRC mismatch",
                            setAside));
            assertThat(recovery.tornBytesCut()).isZero();
            assertThat(recovery.entries()).isEqualTo(5);
            assertThat(readAll(spool)).extracting(Read::seq).containsExactly(0L, 2L, 3L, 4L, 5L);

            byte[] expected = Arrays.copyOfRange(original, (int) ENTRY_BYTES, original.length);
            expected[24 + 3] ^= 0x40;
            assertThat(setAside).hasBinaryContent(expected);
            assertThat(first).hasSize(ENTRY_BYTES);
            assertThat(spool.append(payload(6)).seq()).isEqualTo(6);
        }
        try (Spool again = open(2 * ENTRY_BYTES)) {
            assertThat(again.recovery().damaged()).isEmpty();
            assertThat(files(dir, ".corrupt")).hasSize(1);
            assertThat(again.damage())
                    .as("the damage kept aside counts until an operator deletes it")
                    .isEqualTo(new SpoolDamage(1, 1, ENTRY_BYTES));
        }
    }
}
