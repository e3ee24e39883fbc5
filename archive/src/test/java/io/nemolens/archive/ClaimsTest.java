package io.nemolens.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.archive.commit.ClaimKeeper;
import io.nemolens.archive.store.LocalFolder;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.handlers.ReceivedMessage;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.TransientHandlerException;
import io.nemolens.testing.ArchiveReader;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * With a claim registry, a message another instance claimed first is dropped here, whether it arrives from
 * the broker or from this instance's spool after a restart; what this instance claimed is archived once. The
 * acknowledgement waits for the spool, never for the registry; files wait for their claims.
 */
class ClaimsTest extends ArchiveTestCase {

    private final InMemoryClaims claims = new InMemoryClaims();

    private ParquetArchive open() {
        return open(ArchiveOptions.defaults(dir).maxRows());
    }

    /** @param maxRows rows after which a file is full and committed */
    private ParquetArchive open(long maxRows) {
        ArchiveOptions options =
                ArchiveOptions.builder(dir).maxRows(maxRows).instanceId("a").build();
        return ParquetArchive.builder(options, decoder)
                .store(new LocalFolder(dir))
                .claims(claims)
                .open();
    }

    private List<ReceivedMessage> messages(int count) {
        List<ReceivedMessage> sent = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] body = NemoLensRequests.spans(25, "run-" + (i % 3), 0, i).toByteArray();
            sent.add(ParquetArchiveTest.received(decoder.decode(Signal.SPANS, body, null), body));
        }
        return sent;
    }

    private long committedFiles() throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(f -> f.getFileName().toString().matches("part-.*\\.parquet"))
                    .count();
        }
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
        await().atMost(Duration.ofSeconds(30))
                .until(() -> archive.status().spool().entries() == 0);
    }

    @Test
    void whileTheRegistryIsDownMessagesAreAcknowledgedOnceSpooledButNoFileIsCommittedUntilItReturns() throws Exception {
        archive = open(ArchiveOptions.defaults(dir).maxRows());
        claims.down(true);
        List<ReceivedMessage> sent = messages(12);
        for (ReceivedMessage m : sent) {
            // the acknowledgement waits for the spool, not for the registry
            archive.accept(m).toCompletableFuture().get(30, TimeUnit.SECONDS);
        }
        Thread.sleep(ClaimKeeper.LINGER_MILLIS + 500);
        assertThat(archive.status().claims()).isNotNull();
        assertThat(archive.status().claims().failingSince()).isNotNull();
        assertThat(archive.status().claims().waiting()).isEqualTo(sent.size());
        assertThat(committedFiles())
                .as("no file is committed before its claims")
                .isZero();
        claims.down(false);
        archive.commitNow();
        try (ArchiveReader reader = new ArchiveReader(dir)) {
            assertThat(reader.scalar("SELECT count(*) FROM %s", "spans")).isEqualTo(spans(sent));
        }
        assertThat(claims.owners()).hasSize(sent.size());
        assertThat(archive.status().claims().failingSince()).isNull();
    }

    @Test
    void whileTheRegistryIsDownTheArchiveStopsTakingMessagesOnceFilesWaitForClaims() throws Exception {
        archive = open(25); // every message fills a file
        claims.down(true);
        List<ReceivedMessage> sent = messages(12);
        List<ReceivedMessage> taken = new ArrayList<>();
        TransientHandlerException refused = null;
        for (ReceivedMessage m : sent) {
            try {
                archive.accept(m).toCompletableFuture().get(30, TimeUnit.SECONDS);
                taken.add(m);
                Thread.sleep(100); // the full file reaches the committer, which waits for the claim
            } catch (TransientHandlerException e) {
                refused = e;
                break;
            }
        }
        assertThat(refused)
                .as("a message is refused (left to the broker) once files wait for a failing registry")
                .isNotNull();
        assertThat(refused.getMessage()).contains("claim registry").contains("fails");
        assertThat(taken).hasSizeBetween(4, 6);
        claims.down(false);
        List<ReceivedMessage> rest = sent.subList(taken.size(), sent.size());
        for (ReceivedMessage m : rest) {
            await().atMost(Duration.ofSeconds(30))
                    .ignoreException(TransientHandlerException.class)
                    .until(() -> {
                        archive.accept(m).toCompletableFuture().get(30, TimeUnit.SECONDS);
                        return true;
                    });
        }
        archive.commitNow();
        try (ArchiveReader reader = new ArchiveReader(dir)) {
            assertThat(reader.scalar("SELECT count(*) FROM %s", "spans")).isEqualTo(spans(sent));
            assertThat(reader.scalar("SELECT count(*) FROM (SELECT DISTINCT _message_id, _row FROM %s)", "spans"))
                    .isEqualTo(spans(sent));
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
        await().atMost(Duration.ofSeconds(30))
                .until(() -> archive.status().spool().entries() == sent.size());
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
        await().atMost(Duration.ofSeconds(30)).until(() -> claims.owners().size() == sent.size());
        // a dropped message gives up the files that have its rows, and their other rows are written again:
        // done once every spool entry is released (committed, or dropped)
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            archive.commitNow();
            return archive.rewritten(Duration.ZERO) && archive.status().spool().entries() == 0;
        });
        List<ReceivedMessage> ours = new ArrayList<>(sent);
        ours.removeAll(theirs);
        try (ArchiveReader reader = new ArchiveReader(dir)) {
            assertThat(reader.scalar("SELECT count(*) FROM %s", "spans")).isEqualTo(spans(ours));
            assertThat(reader.scalar("SELECT count(*) FROM (SELECT DISTINCT _message_id, _row FROM %s)", "spans"))
                    .isEqualTo(spans(ours));
        }
        assertThat(archive.status().commits().lostFiles())
                .as("the claims were decided before the spool's rows were written again: no file given up")
                .isZero();
        assertThat(archive.status().claims().lost()).isEqualTo(theirs.size());
    }
}
