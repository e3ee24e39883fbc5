package io.nemolens.app.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.decode.MessageIds;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.handlers.Signal;
import io.nemolens.testing.ArchiveReader;
import io.nemolens.testing.BrokerClient;
import io.nemolens.testing.ConsumerProcess;
import io.nemolens.testing.TestTopology;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bytes flipped inside the spool of a killed consumer, in the middle of its last segment and in an earlier
 * one, cost exactly the two messages they hit. The service (the runnable jar in a child JVM) acknowledges
 * messages one by one while its files stay open (nothing is committed, so every message lives in the spool
 * only), and is killed with SIGKILL; one byte is flipped in each of the two entries; the next start keeps
 * every other message, archives it once, counts the two lost ones in {@code lens.archive.spool.damaged.*}
 * and the {@code archive} health's details, logs their ids at ERROR, and is DOWN until the operator deletes
 * the kept-aside {@code .corrupt} files.
 */
class SpoolDamageIT {

    private static final int SPANS_PER_MESSAGE = 40;
    private static final int MAX_MESSAGES = 200;

    @TempDir
    Path archive;

    private TestTopology topology;
    private final List<ConsumerProcess> consumers = new ArrayList<>();

    @AfterEach
    void cleanUp() {
        consumers.forEach(ConsumerProcess::close);
        topology.delete();
    }

    @Test
    void damageInTheLastAndInAnEarlierSegmentLosesExactlyTheDamagedMessagesAndKeepsHealthDownUntilAcknowledged()
            throws Exception {
        topology = TestTopology.unique("spool-damage");
        Path spool = archive.resolve(".spool");
        Path logs = Files.createDirectories(Path.of("target", "spool-damage-it", topology.queue()));
        byte[] sample =
                NemoLensRequests.spans(SPANS_PER_MESSAGE, "damage-run", 0, 0).toByteArray();
        // about four messages a segment, so that a few dozen fill several
        String segmentSize = 4 * (sample.length + 256) + "B";

        Map<String, byte[]> published = new LinkedHashMap<>();
        Set<String> lost = new HashSet<>();
        try (BrokerClient client = new BrokerClient()) {
            ConsumerProcess first = start(logs, "first", segmentSize);
            await().atMost(Duration.ofSeconds(120)).until(() -> client.consumerCount(topology.queue()) > 0);
            // acknowledged one by one (durable in the spool) until there are four segments, the last holding
            // at least three entries: one in its middle has valid entries after it
            for (int i = 0; i < MAX_MESSAGES && !enoughSegments(entries(spool)); i++) {
                byte[] body = NemoLensRequests.spans(SPANS_PER_MESSAGE, "damage-run", i % 4, i)
                        .toByteArray();
                published.put(MessageIds.of(body), body);
                client.publish(topology.exchange(), "otlp_spans", body);
                int acked = published.size();
                await().atMost(Duration.ofSeconds(60)).until(() -> first.messages("acked") >= acked);
            }
            assertThat(enoughSegments(entries(spool))).isTrue();
            first.kill();
            assertThat(client.messageCount(topology.queue()))
                    .as("every message was acknowledged")
                    .isZero();

            List<SpoolEntry> entries = entries(spool);
            assertThat(entries).hasSize(published.size());
            List<Path> segments =
                    entries.stream().map(SpoolEntry::segment).distinct().toList();
            SpoolEntry inLast = middleOf(entries, segments.get(segments.size() - 1));
            SpoolEntry inEarlier = middleOf(entries, segments.get(1));
            flipInTheMiddleOfItsBody(inLast);
            flipInTheMiddleOfItsBody(inEarlier);
            lost.add(inLast.messageId());
            lost.add(inEarlier.messageId());
            long lostBytes = inLast.bytes() + inEarlier.bytes();

            ConsumerProcess second = start(logs, "second", segmentSize);
            await().atMost(Duration.ofSeconds(120)).until(() -> second.health().status() > 0);
            ConsumerProcess.Health health = second.health();
            assertThat(health.status()).as("DOWN: %s", health.body()).isEqualTo(503);
            assertThat(health.body()).contains("2 acknowledged messages lost to damage in the spool");
            assertThat(health.detail("spoolDamagedEntries")).isEqualTo(2);
            assertThat(health.detail("spoolDamagedBytes")).isEqualTo(lostBytes);
            assertThat(second.meter("lens_archive_spool_damaged_entries")).isEqualTo(2.0);
            assertThat(second.meter("lens_archive_spool_damaged_bytes")).isEqualTo((double) lostBytes);
            String output = second.output();
            assertThat(output).contains("ERROR").contains("acknowledged messages lost to damage in the spool");
            lost.forEach(id ->
                    assertThat(output).as("the lost message ids are logged").contains(id));

            try (Stream<Path> kept = Files.list(spool)) {
                List<Path> corrupt =
                        kept.filter(f -> f.toString().endsWith(".corrupt")).toList();
                assertThat(corrupt).hasSize(2);
                for (Path file : corrupt) {
                    Files.delete(file); // the operator reviewed them: the loss is acknowledged
                }
            }
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(second.health().up()).isTrue());
            assertThat(second.health().detail("spoolDamagedEntries")).isZero();
            assertThat(second.meter("lens_archive_spool_damaged_entries")).isZero();

            assertThat(second.stop())
                    .as("a graceful stop commits the open files")
                    .isNotNegative();
            assertThat(client.messageCount(topology.queue())).isZero();
            assertThat(client.messageCount(topology.poisonQueue())).isZero();
        }

        OtlpDecoder decoder = new OtlpDecoder();
        long expectedRows = 0;
        Set<String> expectedIds = new HashSet<>();
        for (Map.Entry<String, byte[]> e : published.entrySet()) {
            if (!lost.contains(e.getKey())) {
                expectedIds.add(e.getKey());
                expectedRows += decoder.decode(Signal.SPANS, e.getValue(), null)
                        .records()
                        .spans()
                        .size();
            }
        }
        try (ArchiveReader reader = new ArchiveReader(archive)) {
            assertThat(reader.scalar("SELECT count(*) FROM %s", "spans"))
                    .as("the records of every message but the two damaged ones, counted without DISTINCT")
                    .isEqualTo(expectedRows);
            assertThat(reader.scalar(
                            "SELECT count(*) FROM (SELECT _message_id, _row FROM %s GROUP BY _message_id, _row"
                                    + " HAVING count(*) > 1)",
                            "spans"))
                    .isEqualTo(0L);
            Set<String> archivedIds = new HashSet<>();
            reader.query("SELECT DISTINCT _message_id FROM %s", "spans")
                    .forEach(r -> archivedIds.add((String) r.get("_message_id")));
            assertThat(archivedIds).isEqualTo(expectedIds);
        }
    }

    /** The service with its files open for an hour (nothing is committed) and small spool segments. */
    private ConsumerProcess start(Path logs, String name, String segmentSize) throws IOException {
        ConsumerProcess p = ConsumerProcess.start(
                topology,
                logs.resolve(name + ".log"),
                List.of(),
                List.of("-Xmx256m"),
                Map.of(
                        "lens.archive.path",
                        archive.toString(),
                        "lens.archive.max-age",
                        "1h",
                        "lens.archive.spool.segment-size",
                        segmentSize));
        consumers.add(p);
        return p;
    }

    /** A spool entry as found on disk: where it is, its payload length, its seq and its message's id. */
    private record SpoolEntry(Path segment, long offset, int length, long seq, String messageId) {

        long bytes() {
            return 24L + length;
        }
    }

    /**
     * The whole entries of the spool's segments, oldest first: {@code [int32 payload length][int32 CRC32C][int64
     * seq][int64 appendedAtMillis][payload]}, the payload starting with the archive's head (version, signal,
     * encoding, flags, receive time, then the 16 bytes of the message id).
     */
    private static List<SpoolEntry> entries(Path spool) throws IOException {
        List<SpoolEntry> found = new ArrayList<>();
        if (!Files.isDirectory(spool)) {
            return found;
        }
        List<Path> segments;
        try (Stream<Path> files = Files.list(spool)) {
            segments = files.filter(f -> f.getFileName().toString().matches("segment-\\d+\\.log"))
                    .sorted()
                    .toList();
        }
        for (Path segment : segments) {
            ByteBuffer file = ByteBuffer.wrap(Files.readAllBytes(segment));
            int at = 0;
            while (file.limit() - at >= 24 + 28) {
                int length = file.getInt(at);
                if (length < 28 || length > file.limit() - at - 24) {
                    break; // an append under way
                }
                byte[] id = new byte[16];
                file.get(at + 24 + 12, id);
                found.add(new SpoolEntry(
                        segment,
                        at,
                        length,
                        file.getLong(at + 8),
                        HexFormat.of().formatHex(id)));
                at += 24 + length;
            }
        }
        return found;
    }

    private static boolean enoughSegments(List<SpoolEntry> entries) {
        List<Path> segments =
                entries.stream().map(SpoolEntry::segment).distinct().toList();
        return segments.size() >= 4
                && entries.stream()
                                .filter(e -> e.segment().equals(segments.get(segments.size() - 1)))
                                .count()
                        >= 3;
    }

    /** The entry in the middle of a segment: neither its first nor its last. */
    private static SpoolEntry middleOf(List<SpoolEntry> entries, Path segment) {
        List<SpoolEntry> in =
                entries.stream().filter(e -> e.segment().equals(segment)).toList();
        assertThat(in).hasSizeGreaterThanOrEqualTo(3);
        return in.get(in.size() / 2);
    }

    /** Flips one bit in the middle of the entry's payload: its message's body. */
    private static void flipInTheMiddleOfItsBody(SpoolEntry entry) throws IOException {
        try (RandomAccessFile file = new RandomAccessFile(entry.segment().toFile(), "rw")) {
            long middle = entry.offset() + 24 + entry.length() / 2;
            file.seek(middle);
            int b = file.read();
            file.seek(middle);
            file.write(b ^ 0x40);
        }
    }
}
