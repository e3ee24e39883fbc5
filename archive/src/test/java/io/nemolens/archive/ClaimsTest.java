package io.nemolens.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.archive.store.LocalFolder;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.handlers.ReceivedMessage;
import io.nemolens.handlers.Signal;
import io.nemolens.testing.ArchiveReader;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * With a claim registry, a message another instance claimed first is acknowledged and dropped here, whether
 * it arrives from the broker or from this instance's spool after a restart; what this instance claimed is
 * archived once.
 */
class ClaimsTest extends ArchiveTestCase {

    private final InMemoryClaims claims = new InMemoryClaims();

    private ParquetArchive open() {
        ArchiveOptions options = ArchiveOptions.defaults(dir).withInstanceId("a");
        return new ParquetArchive(options, decoder, Clock.systemUTC(), new LocalFolder(dir), claims);
    }

    private List<ReceivedMessage> messages(int count) {
        List<ReceivedMessage> sent = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] body = NemoLensRequests.spans(25, "run-" + (i % 3), 0, i).toByteArray();
            sent.add(ParquetArchiveTest.received(decoder.decode(Signal.SPANS, body, null), body));
        }
        return sent;
    }

    private long spans(List<ReceivedMessage> messages) {
        return messages.stream().mapToLong(m -> m.records().spans().size()).sum();
    }

    @Test
    void aMessageAnotherInstanceClaimedIsAcknowledgedAndNotArchived() throws Exception {
        archive = open();
        List<ReceivedMessage> sent = messages(30);
        List<ReceivedMessage> theirs = new ArrayList<>();
        for (int i = 0; i < sent.size(); i += 3) {
            claims.claimedBy(sent.get(i).info().messageId(), "b");
            theirs.add(sent.get(i));
        }
        for (ReceivedMessage m : sent) {
            archive.accept(m).toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
        archive.commitNow();
        List<ReceivedMessage> ours = new ArrayList<>(sent);
        ours.removeAll(theirs);
        try (ArchiveReader reader = new ArchiveReader(dir)) {
            assertThat(reader.scalar("SELECT count(*) FROM %s", "spans")).isEqualTo(spans(ours));
            for (ReceivedMessage m : theirs) {
                assertThat(reader.scalar(
                                "SELECT count(*) FROM %s WHERE _message_id = '"
                                        + m.info().messageId() + "'",
                                "spans"))
                        .isEqualTo(0L);
            }
        }
        assertThat(claims.owners()).hasSize(sent.size());
        await().atMost(Duration.ofSeconds(30)).until(() -> archive.status().spoolEntries() == 0);
    }

    @Test
    void nothingIsAcknowledgedWhileTheRegistryIsDownAndAllIsArchivedOnceWhenItReturns() throws Exception {
        archive = open();
        claims.down(true);
        List<ReceivedMessage> sent = messages(12);
        List<CompletableFuture<?>> acks = new ArrayList<>();
        for (ReceivedMessage m : sent) {
            acks.add(archive.accept(m).toCompletableFuture());
        }
        Thread.sleep(1_500);
        assertThat(acks).noneMatch(CompletableFuture::isDone);
        claims.down(false);
        for (CompletableFuture<?> ack : acks) {
            ack.get(30, TimeUnit.SECONDS);
        }
        archive.commitNow();
        try (ArchiveReader reader = new ArchiveReader(dir)) {
            assertThat(reader.scalar("SELECT count(*) FROM %s", "spans")).isEqualTo(spans(sent));
        }
    }

    @Test
    void afterARestartTheSpoolsMessagesThatAnotherInstanceClaimedMeanwhileAreDropped() throws Exception {
        archive = open();
        claims.down(true); // spooled and durable, never claimed nor acknowledged: as if the process died then
        List<ReceivedMessage> sent = messages(12);
        for (ReceivedMessage m : sent) {
            var unused = archive.accept(m);
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> archive.status().spoolEntries() == sent.size());
        archive.close(); // its files wait for claims: given up, the spool keeps the messages
        archive = null;
        // meanwhile the broker gave half of them to instance b, which claimed them
        List<ReceivedMessage> theirs = new ArrayList<>();
        for (int i = 0; i < sent.size(); i += 2) {
            claims.claimedBy(sent.get(i).info().messageId(), "b");
            theirs.add(sent.get(i));
        }
        claims.down(false);
        archive = open();
        assertThat(archive.rewritten(Duration.ofSeconds(60))).isTrue();
        await().atMost(Duration.ofSeconds(30)).until(() -> claims.owners().size() == sent.size());
        archive.commitNow();
        List<ReceivedMessage> ours = new ArrayList<>(sent);
        ours.removeAll(theirs);
        try (ArchiveReader reader = new ArchiveReader(dir)) {
            assertThat(reader.scalar("SELECT count(*) FROM %s", "spans")).isEqualTo(spans(ours));
            assertThat(reader.scalar("SELECT count(*) FROM (SELECT DISTINCT _message_id, _row FROM %s)", "spans"))
                    .isEqualTo(spans(ours));
        }
    }
}
