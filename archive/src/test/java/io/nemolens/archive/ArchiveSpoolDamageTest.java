package io.nemolens.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.archive.autoconfigure.ArchiveHealthIndicator;
import io.nemolens.archive.commit.SpooledMessage;
import io.nemolens.archive.spool.Spool;
import io.nemolens.archive.spool.SpoolOptions;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.handlers.ReceivedMessage;
import io.nemolens.handlers.Signal;
import io.nemolens.testing.ArchiveReader;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * A spool left with damaged entries (in the middle of its last segment and in an earlier one): the archive
 * writes every other message from it, counts the lost ones, and its health is DOWN with the count until
 * the kept-aside bytes are deleted.
 */
class ArchiveSpoolDamageTest extends ArchiveTestCase {

    private static final int MESSAGES = 12;
    private static final int SPANS = 20;

    @Test
    void damagedSpoolEntriesCostTheirMessagesOnlyAndKeepTheHealthDownUntilAcknowledged() throws Exception {
        Path spoolPath = dir.resolve(".spool");
        List<ReceivedMessage> messages = new ArrayList<>();
        for (int i = 0; i < MESSAGES; i++) {
            byte[] body = NemoLensRequests.spans(SPANS, "damage-run", i, i).toByteArray();
            messages.add(ParquetArchiveTest.received(decoder.decode(Signal.SPANS, body, null), body));
        }
        // the spool as a killed archive leaves it: every message durable (and acknowledged), about four a segment
        long entryBytes = 24
                + SpooledMessage.head(messages.get(0)).length
                + messages.get(0).body().length;
        try (Spool spool = Spool.open(spoolPath, new SpoolOptions(64L << 20, 4 * entryBytes + 64), Clock.systemUTC())) {
            for (ReceivedMessage m : messages) {
                spool.append(SpooledMessage.head(m), m.body());
            }
        }
        List<Path> segments = segments(spoolPath);
        assertThat(segments).hasSizeGreaterThanOrEqualTo(3);
        List<Lost> lost = List.of(
                flipInTheMiddleOfEntry(segments.get(0), 1, messages),
                flipInTheMiddleOfEntry(segments.get(segments.size() - 1), 1, messages));
        Set<String> lostIds = new HashSet<>();
        lost.forEach(l -> lostIds.add(l.messageId()));
        long lostBytes = lost.stream().mapToLong(Lost::entryBytes).sum();

        try (ParquetArchive archive =
                ParquetArchive.builder(ArchiveOptions.defaults(dir), decoder).open()) {
            assertThat(archive.rewritten(Duration.ofSeconds(30)))
                    .as("every entry left is written again, the seqs lost notwithstanding")
                    .isTrue();
            archive.commitNow();

            try (ArchiveReader reader = new ArchiveReader(dir)) {
                assertThat(reader.scalar("SELECT count(*) FROM %s", "spans")).isEqualTo((long) (MESSAGES - 2) * SPANS);
                Set<Object> archived = new HashSet<>();
                reader.query("SELECT DISTINCT _message_id FROM %s", "spans")
                        .forEach(r -> archived.add(r.get("_message_id")));
                Set<Object> expected = new HashSet<>();
                messages.stream()
                        .map(m -> m.info().messageId())
                        .filter(id -> !lostIds.contains(id))
                        .forEach(expected::add);
                assertThat(archived).isEqualTo(expected);
            }
            ArchiveStatus status = archive.status();
            assertThat(status.spool().damage().entries()).isEqualTo(2);
            assertThat(status.spool().damage().files()).isEqualTo(2);
            assertThat(status.spool().damage().bytes()).isEqualTo(lostBytes);
            ArchiveHealthIndicator indicator = new ArchiveHealthIndicator(archive, 0, Duration.ofHours(1));
            Health health = indicator.health();
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat(health.getDetails())
                    .containsEntry("spoolDamagedEntries", 2L)
                    .containsEntry("spoolDamagedBytes", lostBytes);
            assertThat((String) health.getDetails().get("spoolDamage")).contains("2 acknowledged messages lost");

            try (Stream<Path> kept = Files.list(spoolPath)) {
                for (Path file :
                        kept.filter(f -> f.toString().endsWith(".corrupt")).toList()) {
                    Files.delete(file); // the operator acknowledges the loss
                }
            }
            await().atMost(Duration.ofSeconds(5))
                    .untilAsserted(
                            () -> assertThat(indicator.health().getStatus()).isEqualTo(Status.UP));
            assertThat(indicator.health().getDetails()).containsEntry("spoolDamagedEntries", 0L);
        }
    }

    private static List<Path> segments(Path spool) throws IOException {
        try (Stream<Path> files = Files.list(spool)) {
            return files.filter(f -> f.getFileName().toString().matches("segment-\\d+\\.log"))
                    .sorted()
                    .toList();
        }
    }

    /** A message whose spool entry is damaged, and the bytes its entry takes. */
    private record Lost(String messageId, long entryBytes) {}

    /** Flips a byte in the middle of a segment's {@code index}th entry's body. */
    private static Lost flipInTheMiddleOfEntry(Path segment, int index, List<ReceivedMessage> messages)
            throws IOException {
        try (RandomAccessFile file = new RandomAccessFile(segment.toFile(), "rw")) {
            long offset = 0;
            for (int i = 0; i < index; i++) {
                file.seek(offset);
                offset += 24 + file.readInt();
            }
            file.seek(offset);
            int length = file.readInt();
            file.seek(offset + 8);
            long seq = file.readLong();
            long middle = offset + 24 + length / 2;
            file.seek(middle);
            int b = file.read();
            file.seek(middle);
            file.write(b ^ 0x40);
            return new Lost(messages.get((int) seq).info().messageId(), 24L + length);
        }
    }
}
