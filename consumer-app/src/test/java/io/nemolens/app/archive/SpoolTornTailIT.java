package io.nemolens.app.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.app.testing.Service;
import io.nemolens.archive.ParquetArchive;
import io.nemolens.decode.MessageIds;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.handlers.Signal;
import io.nemolens.testing.ArchiveReader;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.ConsumerProcess;
import io.nemolens.testing.RunningConsumer;
import io.nemolens.testing.TcpProxy;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * A consumer dies while the last message it took is being appended to its spool: the entry is torn (cut
 * in half), and the message was never acknowledged, so the broker still holds it. The next consumer
 * starts cleanly: it cuts the torn tail, writes the earlier entries' rows from the spool, and takes the
 * message again from the broker; every message is archived exactly once.
 *
 * <p>Modelled faithfully with a consumer in a child JVM (the service's executable jar) that reaches the
 * broker through a proxy: once its first messages are acknowledged, the proxy drops what the consumer
 * sends, so the last message is delivered and spooled but its acknowledgement never reaches the broker;
 * the child is then killed with SIGKILL (the broker takes the message back), and the spool's last entry
 * is cut in half, as a crash during the append leaves it.
 */
@ExtendWith(OutputCaptureExtension.class)
class SpoolTornTailIT {

    private static final int SPANS_PER_MESSAGE = 120;

    @RegisterExtension
    final ConsumerExtension lens = Service.extension().manualStart();

    @Test
    void aTornLastSpoolEntryIsCutAtStartAndItsMessageComesBackFromTheBrokerAndIsArchivedOnce(CapturedOutput output)
            throws Exception {
        Path archive = lens.archive();
        Path spool = archive.resolve(".spool");
        List<byte[]> earlier = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            earlier.add(
                    NemoLensRequests.spans(SPANS_PER_MESSAGE, "torn-run", i, i).toByteArray());
        }
        byte[] last =
                NemoLensRequests.spans(SPANS_PER_MESSAGE, "torn-run", 3, 3).toByteArray();
        Set<String> ids = new HashSet<>();
        earlier.forEach(b -> ids.add(MessageIds.of(b)));
        ids.add(MessageIds.of(last));
        assertThat(ids).hasSize(4);

        try (TcpProxy proxy = TcpProxy.toTestBroker()) {
            // the service's jar in a child JVM, reaching the broker through the proxy, its files open 10 minutes
            Map<String, Object> props = new LinkedHashMap<>(proxy.springProperties());
            props.put("lens.archive.max-age", "10m");
            ConsumerProcess child =
                    lens.startProcess(Path.of("target", "torn-tail-it", "child.log"), List.of("-Xmx256m"), props);
            await().atMost(Duration.ofSeconds(120)).until(() -> lens.consumers() > 0);
            for (byte[] body : earlier) {
                lens.publish("otlp_spans", body);
            }
            // the first three are spooled and acknowledged (their files stay open: max-age is long)
            await().atMost(Duration.ofSeconds(60)).until(() -> child.messages("acked") == 3);
            assertThat(entries(spool)).hasSize(3);

            // from now on the broker hears nothing from the consumer: the last message is delivered and
            // spooled, but its acknowledgement never arrives
            proxy.dropClientBytes();
            lens.publish("otlp_spans", last);
            await().atMost(Duration.ofSeconds(60)).until(() -> entries(spool).size() == 4);
            child.kill(); // SIGKILL
            proxy.stop();
        }
        // the broker takes back what was not acknowledged: the last message (and, should the third
        // acknowledgement still have been on its way when the proxy began dropping, the third one too,
        // which the next consumer finds in the spool and acknowledges without taking it again)
        await().atMost(Duration.ofSeconds(30)).until(() -> lens.queued() >= 1);
        long redelivered = lens.queued();
        assertThat(redelivered).isBetween(1L, 2L);
        assertThat(lens.poisoned()).isZero();

        // a crash during the append leaves the last entry torn
        Entry torn = entries(spool).get(3);
        long cutAt = torn.offset() + torn.bytes() / 2;
        try (FileChannel ch = FileChannel.open(torn.segment(), StandardOpenOption.WRITE)) {
            ch.truncate(cutAt);
        }
        assertThat(entries(spool)).hasSize(3);

        RunningConsumer consumer = lens.start(Map.of("lens.archive.max-age", "1s"));
        assertThat(output.getOut())
                .as("the torn tail is cut at start")
                .contains("cut a torn tail of " + (cutAt - torn.offset()) + " bytes at offset " + torn.offset());
        await().atMost(Duration.ofSeconds(60)).until(() -> consumer.messages("acked") == redelivered);
        consumer.awaitArchived(Duration.ofSeconds(60));
        assertThat(lens.queued()).isZero();
        assertThat(lens.poisoned()).isZero();
        assertThat(consumer.bean(ParquetArchive.class).status().spool().duplicates())
                .as("the last message came back as new: nothing of its torn entry counts for it")
                .isEqualTo(redelivered - 1);

        int spansPerMessage = new OtlpDecoder()
                .decode(Signal.SPANS, last, null)
                .records()
                .spans()
                .size();
        try (ArchiveReader reader = new ArchiveReader(archive)) {
            assertThat(reader.scalar("SELECT count(*) FROM %s", "spans")).isEqualTo(4L * spansPerMessage);
            assertThat(reader.scalar("SELECT count(*) FROM (SELECT DISTINCT _message_id, _row FROM %s)", "spans"))
                    .isEqualTo(4L * spansPerMessage);
            Map<Object, Object> rowsPerMessage = new HashMap<>();
            reader.query("SELECT _message_id, count(*) AS n FROM %s GROUP BY _message_id", "spans")
                    .forEach(r -> rowsPerMessage.put(r.get("_message_id"), r.get("n")));
            Map<Object, Object> expected = new HashMap<>();
            ids.forEach(id -> expected.put(id, (long) spansPerMessage));
            assertThat(rowsPerMessage).as("rows per message").isEqualTo(expected);
        }
        try (Stream<Path> files = Files.walk(archive.resolve("spans"))) {
            assertThat(files.filter(Files::isRegularFile)
                            .map(p -> p.getFileName().toString()))
                    .as("nothing but committed Parquet files")
                    .allMatch(name -> name.startsWith("part-") && name.endsWith(".parquet"));
        }
    }

    /** One whole entry of a spool segment, where it starts and how many bytes it takes. */
    private record Entry(Path segment, long offset, long bytes) {}

    /**
     * The whole entries of the spool's segment files, oldest first, read as the spool writes them:
     * {@code [int32 payload length][int32 CRC32C][int64 seq][int64 appendedAtMillis][payload]}; a partial
     * entry at the end is not one.
     */
    private static List<Entry> entries(Path spool) throws IOException {
        List<Entry> entries = new ArrayList<>();
        if (!Files.isDirectory(spool)) {
            return entries;
        }
        List<Path> segments;
        try (Stream<Path> s = Files.list(spool)) {
            segments = s.filter(p -> p.getFileName().toString().matches("segment-\\d+\\.log"))
                    .sorted()
                    .toList();
        }
        for (Path segment : segments) {
            ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(segment));
            while (bytes.remaining() >= 24) {
                int start = bytes.position();
                int length = bytes.getInt(start);
                if (length < 0 || length > bytes.remaining() - 24) {
                    break;
                }
                entries.add(new Entry(segment, start, 24L + length));
                bytes.position(start + 24 + length);
            }
        }
        return entries;
    }
}
