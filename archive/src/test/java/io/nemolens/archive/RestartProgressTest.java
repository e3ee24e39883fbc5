package io.nemolens.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.archive.commit.SpooledMessage;
import io.nemolens.archive.parquet.OutputFiles;
import io.nemolens.archive.spool.Spool;
import io.nemolens.archive.spool.SpoolOptions;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.handlers.ReceivedMessage;
import io.nemolens.handlers.Signal;
import io.nemolens.testing.ArchiveReader;
import io.nemolens.testing.MutableClock;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.PositionOutputStream;
import org.junit.jupiter.api.Test;

/**
 * A consumer that restarts more often than {@code max-age} still commits: what a crash left in the spool is
 * written again at start and committed at once, and rows written again keep the age of their first append.
 */
class RestartProgressTest extends ArchiveTestCase {

    private static final int MESSAGES = 6;
    private static final int SPANS = 16;

    private final MutableClock clock = MutableClock.at("2026-11-30T10:00:00Z");

    /** The spool as a killed consumer leaves it: every message durable (acknowledged), no file committed. */
    private void spoolAsAKilledConsumerLeavesIt(ArchiveOptions options) throws Exception {
        spoolAsAKilledConsumerLeavesIt(options, MESSAGES, SPANS);
    }

    private void spoolAsAKilledConsumerLeavesIt(ArchiveOptions options, int count, int spans) throws Exception {
        List<ReceivedMessage> messages = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] body = NemoLensRequests.spans(spans, "restart-run-" + (i % 2), i, i)
                    .toByteArray();
            messages.add(ParquetArchiveTest.received(decoder.decode(Signal.SPANS, body, null), body));
        }
        try (Spool spool = Spool.open(
                options.spoolPath(), new SpoolOptions(options.spoolMaxBytes(), options.spoolSegmentBytes()), clock)) {
            for (ReceivedMessage m : messages) {
                spool.append(SpooledMessage.head(m), m.body()).durable().get();
            }
        }
    }

    @Test
    void whatACrashLeftIsCommittedRightAfterTheRecoveryNotAMaxAgeLater() throws Exception {
        ArchiveOptions options = ArchiveOptions.defaults(dir);
        spoolAsAKilledConsumerLeavesIt(options);
        clock.advance(Duration.ofSeconds(30)); // restarted half a minute later, well within max-age
        try (ParquetArchive archive =
                ParquetArchive.builder(options, decoder).clock(clock).open()) {
            assertThat(archive.rewritten(Duration.ofSeconds(30))).isTrue();
            // the clock stands still: only the recovery's own commit can have committed them
            await().atMost(Duration.ofSeconds(20))
                    .until(() -> archive.status().spool().entries() == 0);
            assertThat(archive.status().commits().files())
                    .as("one file per run")
                    .isEqualTo(2);
            try (ArchiveReader reader = new ArchiveReader(dir)) {
                assertThat(reader.scalar("SELECT count(*) FROM %s", "spans")).isEqualTo((long) MESSAGES * SPANS);
            }
        }
    }

    @Test
    void aStopRightAfterTheStartFinishesWritingAgainWhatTheSpoolHolds() throws Exception {
        ArchiveOptions options = ArchiveOptions.defaults(dir);
        int messages = 200;
        int spans = 500;
        spoolAsAKilledConsumerLeavesIt(options, messages, spans);
        // stopped as soon as it started (a rolling deploy restarting it twice): the recovery is under way
        ParquetArchive.builder(options, decoder).clock(clock).open().close();
        try (ArchiveReader reader = new ArchiveReader(dir)) {
            assertThat(reader.scalar("SELECT count(*) FROM %s", "spans"))
                    .as("every row of the spool in a committed file after the stop")
                    .isEqualTo((long) messages * spans);
        }
        // the next start finds nothing to write again (the spool's segment may still be there: its rows are in files)
        try (ParquetArchive again =
                ParquetArchive.builder(options, decoder).clock(clock).open()) {
            again.commitNow();
            assertThat(again.status().commits().files())
                    .as("files written at the next start")
                    .isZero();
        }
        try (ArchiveReader reader = new ArchiveReader(dir)) {
            assertThat(reader.scalar("SELECT count(*) FROM %s", "spans")).isEqualTo((long) messages * spans);
        }
    }

    @Test
    void rowsWrittenAgainKeepTheAgeOfTheirFirstAppend() throws Exception {
        ArchiveOptions options = ArchiveOptions.defaults(dir);
        AtomicInteger created = new AtomicInteger();
        // the first file fails when it is committed (its stream refuses its rows): its rows are written again
        OutputFiles firstFails =
                path -> created.incrementAndGet() == 1 ? new Refusing(path) : new LocalOutputFile(path);
        try (ParquetArchive archive = ParquetArchive.builder(options, decoder)
                .clock(clock)
                .outputs(firstFails)
                .open()) {
            for (int i = 0; i < MESSAGES; i++) {
                byte[] body = NemoLensRequests.spans(SPANS, "aged-run", i, i).toByteArray();
                archive.accept(ParquetArchiveTest.received(decoder.decode(Signal.SPANS, body, null), body))
                        .toCompletableFuture()
                        .get();
            }
            clock.advance(Duration.ofMinutes(5).plusSeconds(1));
            // the first file is due and fails; its rows go to a new file, which is as old as they are: due too
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> archive.status().commits().files() == 1);
            assertThat(created.get()).isEqualTo(2);
            assertThat(archive.status().spool().entries()).isZero();
            try (ArchiveReader reader = new ArchiveReader(dir)) {
                assertThat(reader.scalar("SELECT count(*) FROM %s", "spans")).isEqualTo((long) MESSAGES * SPANS);
            }
        }
    }

    /**
     * The local file whose stream takes the magic bytes Parquet writes when it opens a file, and refuses the rest (its
     * block size and path are the local file's).
     */
    private static final class Refusing extends LocalOutputFile {
        Refusing(Path path) {
            super(path);
        }

        @Override
        public PositionOutputStream create(long blockSize) {
            return new PositionOutputStream() {
                private long written;

                @Override
                public long getPos() {
                    return written;
                }

                @Override
                public void write(int b) throws IOException {
                    if (written >= 4) {
                        throw new IOException("no space left on device (the test's)");
                    }
                    written++;
                }
            };
        }

        @Override
        public PositionOutputStream createOrOverwrite(long blockSize) {
            return create(blockSize);
        }
    }
}
