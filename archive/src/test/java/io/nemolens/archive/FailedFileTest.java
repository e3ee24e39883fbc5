package io.nemolens.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.nemolens.archive.parquet.OutputFiles;
import io.nemolens.decode.DecodedMessage;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.handlers.ReceivedMessage;
import io.nemolens.handlers.Signal;
import io.nemolens.testing.ArchiveReader;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.OutputFile;
import org.apache.parquet.io.PositionOutputStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * A file that fails inside the Parquet writer — a write error part way through (a full disk), or an
 * {@link OutOfMemoryError} — is never committed: every file under a final {@code part-*.parquet} name reads
 * back with DuckDB, no temporary file is left, the failed file's rows are written again from the spool,
 * each row exactly once (counted without {@code DISTINCT}), and the failed file's stream is closed.
 */
class FailedFileTest extends ArchiveTestCase {

    /** Bytes a failing file takes before it fails: past the 4-byte magic, inside the first row group. */
    private static final long FAIL_AFTER = 64;

    private FailingOutputs outputs;

    @Test
    void aWriteErrorPartWayThroughARowGroupLeavesNoFileBehindAndItsRowsAreWrittenAgainFromTheSpool() throws Exception {
        // small row groups: rows reach the file while messages are taken, on the listener's thread
        open(Map.of(1, Failure.diskFull(FAIL_AFTER)), 16 << 10);
        List<ReceivedMessage> sent = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            sent.add(spans(600, i % 2 == 0 ? "run-a" : "run-b", i % 4, i));
        }
        for (ReceivedMessage m : sent) {
            take(m);
        }
        assertThat(outputs.failed()).as("the first file failed part way").isEqualTo(1);
        assertThat(archive.status().commits().lostFiles()).isEqualTo(1);

        assertThat(archive.rewritten(Duration.ofSeconds(60))).isTrue();
        archive.commitNow();

        assertEveryCommittedFileReadsBack();
        assertEachRowOnce(sent);
        archive.close();
        assertThat(outputs.openStreams())
                .as("streams of files still open after close")
                .isEmpty();
    }

    @Test
    void anOutOfMemoryErrorWhileAFileIsCommittedLeavesNoFileUnderItsFinalNameAndTheCommitsGoOn() throws Exception {
        // the default row group (32 MB): nothing reaches the file before the commit thread finishes it
        open(Map.of(1, Failure.outOfMemoryOnce(FAIL_AFTER)), 32 << 20);
        ReceivedMessage first = spans(900, "run-a", 0, 1);
        take(first);

        archive.commitNow();
        assertThat(outputs.failed()).as("the error came from inside the writer").isEqualTo(1);
        assertThat(parquetFiles()).as("a file that failed has no final name").isEmpty();
        assertThat(archive.status().commits().lostFiles()).isEqualTo(1);

        assertThat(archive.rewritten(Duration.ofSeconds(60))).isTrue();
        ReceivedMessage second = spans(300, "run-a", 1, 2);
        take(second);
        archive.commitNow();

        assertEveryCommittedFileReadsBack();
        assertEachRowOnce(List.of(first, second));
        archive.close();
        assertThat(outputs.openStreams())
                .as("streams of files still open after close")
                .isEmpty();
    }

    @Test
    void aFileThatFailsWhileManyAreFinishedAtOnceCostsThatFileOnlyAndEveryRowIsArchivedOnce() throws Exception {
        // the default row group: every file's rows reach it when it is finished, eight files cut at once by the
        // end of the stream and finished on several threads; the third file fails inside the writer
        open(Map.of(3, Failure.outOfMemoryOnce(FAIL_AFTER)), 32 << 20);
        List<ReceivedMessage> sent = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            sent.add(spans(700, "run-" + i, 0, 10 + i));
        }
        for (ReceivedMessage m : sent) {
            take(m);
        }

        archive.commitNow();
        assertThat(outputs.failed()).as("the error came from inside the writer").isEqualTo(1);
        assertThat(archive.status().commits().lostFiles()).isEqualTo(1);
        assertThat(parquetFiles()).as("the other seven files committed").hasSize(7);

        assertThat(archive.rewritten(Duration.ofSeconds(60))).isTrue();
        archive.commitNow();

        assertEveryCommittedFileReadsBack();
        assertEachRowOnce(sent);
        assertThat(archive.status().commits().files()).isEqualTo(8);
        archive.close();
        assertThat(outputs.openStreams())
                .as("streams of files still open after close")
                .isEmpty();
    }

    @Test
    void anOutOfMemoryErrorInOnePartitionsFileWhileAMessageIsTakenCostsThatFileOnlyAndEveryRowIsArchivedOnce()
            throws Exception {
        open(Map.of(1, Failure.outOfMemoryOnce(FAIL_AFTER)), 16 << 10);
        // one message with the rows of two runs: two partitions, two files; the first one's row group fails
        ExportTraceServiceRequest request = ExportTraceServiceRequest.newBuilder()
                .addAllResourceSpans(NemoLensRequests.spans(900, "run-a", 0, 1).getResourceSpansList())
                .addAllResourceSpans(NemoLensRequests.spans(900, "run-b", 0, 2).getResourceSpansList())
                .build();
        byte[] body = request.toByteArray();
        ReceivedMessage message = ParquetArchiveTest.received(decoder.decode(Signal.SPANS, body, null), body);

        // the message is durable in the spool: it is acknowledged, the other partition's rows are written as
        // usual, and the failed file's rows come back from the spool
        take(message);
        assertThat(outputs.failed()).as("the error came from inside the writer").isEqualTo(1);
        assertThat(archive.status().commits().lostFiles()).isEqualTo(1);

        assertThat(archive.rewritten(Duration.ofSeconds(60))).isTrue();
        archive.commitNow();

        assertEveryCommittedFileReadsBack();
        assertEachRowOnce(List.of(message));
        try (ArchiveReader reader = new ArchiveReader(dir)) {
            assertThat(reader.query("SELECT run_id, count(*) AS n FROM %s GROUP BY run_id ORDER BY run_id", "spans"))
                    .extracting(r -> r.get("run_id"), r -> r.get("n"))
                    .containsExactly(tuple("run-a", 900L), tuple("run-b", 900L));
        }
        archive.close();
        assertThat(outputs.openStreams())
                .as("streams of files still open after close")
                .isEmpty();
    }

    @Test
    void anOutOfMemoryErrorWhileRowsAreWrittenAgainDoesNotStopTheRewriting() throws Exception {
        // file 1 (the message's) fails on a full disk; file 2 (its rows written again) with an error
        open(Map.of(1, Failure.diskFull(FAIL_AFTER), 2, Failure.outOfMemoryOnce(FAIL_AFTER)), 16 << 10);
        ReceivedMessage message = spans(900, "run-a", 0, 1);
        take(message);

        assertThat(archive.rewritten(Duration.ofSeconds(60)))
                .as("every failed file's rows written again")
                .isTrue();
        assertThat(outputs.failed()).isEqualTo(2);
        archive.commitNow();

        assertEveryCommittedFileReadsBack();
        assertEachRowOnce(List.of(message));
        archive.close();
        assertThat(outputs.openStreams())
                .as("streams of files still open after close")
                .isEmpty();
    }

    private void open(Map<Integer, Failure> failing, long rowGroupBytes) {
        outputs = new FailingOutputs(failing);
        ArchiveOptions options = ArchiveOptions.builder(dir)
                .maxAge(Duration.ofMinutes(10)) // files are committed when the test says so
                .rowGroupSizeBytes(rowGroupBytes)
                .build();
        archive = ParquetArchive.builder(options, decoder).outputs(outputs).open();
    }

    private ReceivedMessage spans(int count, String run, int rank, long seed) {
        byte[] body = NemoLensRequests.spans(count, run, rank, seed).toByteArray();
        DecodedMessage decoded = decoder.decode(Signal.SPANS, body, null);
        return ParquetArchiveTest.received(decoded, body);
    }

    /** Hands the message to the archive and waits until it is durable in the spool (the consumer's ack). */
    private void take(ReceivedMessage message) throws Exception {
        try {
            archive.accept(message).toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (OutOfMemoryError e) {
            // JUnit rethrows an OutOfMemoryError and ends the run: make it a failure of this test
            throw new AssertionError("the error from inside the Parquet writer reached the caller", e);
        }
    }

    private void assertEveryCommittedFileReadsBack() throws Exception {
        List<Path> files = parquetFiles();
        assertThat(files).isNotEmpty();
        assertThat(temporaryFiles()).as("temporary files left").isEmpty();
        try (ArchiveReader reader = new ArchiveReader(dir)) {
            for (Path file : files) {
                assertThat(Files.size(file)).as("size of %s", file).isGreaterThan(8);
                assertThat((Long) reader.scalar("SELECT count(*) FROM read_parquet('" + file.toAbsolutePath() + "')"))
                        .as("rows DuckDB reads from %s", file)
                        .isPositive();
            }
        }
    }

    private void assertEachRowOnce(List<ReceivedMessage> sent) throws Exception {
        long expected = sent.stream().mapToLong(m -> m.records().spans().size()).sum();
        Set<String> ids = new HashSet<>();
        sent.forEach(m -> ids.add(m.info().messageId()));
        try (ArchiveReader reader = new ArchiveReader(dir)) {
            assertThat(reader.scalar("SELECT count(*) FROM %s", "spans")).isEqualTo(expected);
            assertThat(reader.scalar("SELECT count(*) FROM (SELECT DISTINCT _message_id, _row FROM %s)", "spans"))
                    .isEqualTo(expected);
            Set<Object> archived = new HashSet<>();
            reader.query("SELECT DISTINCT _message_id FROM %s", "spans")
                    .forEach(r -> archived.add(r.get("_message_id")));
            assertThat(archived).isEqualTo(ids);
        }
    }

    private List<Path> parquetFiles() throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".parquet"))
                    .sorted()
                    .toList();
        }
    }

    private List<Path> temporaryFiles() throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".tmp")).toList();
        }
    }

    /**
     * How one file fails once it has taken {@code after} bytes: the bytes that still fit are written, then
     * the write throws. A full disk goes on failing; an {@link OutOfMemoryError} is thrown once.
     */
    private record Failure(long after, boolean outOfMemory) {
        static Failure diskFull(long after) {
            return new Failure(after, false);
        }

        static Failure outOfMemoryOnce(long after) {
            return new Failure(after, true);
        }
    }

    /** Local files; those numbered in {@code failing} (1 = the first file the archive opens) fail as told. */
    private static final class FailingOutputs implements OutputFiles {

        private final Map<Integer, Failure> failing;
        private final AtomicInteger created = new AtomicInteger();
        private final AtomicInteger failed = new AtomicInteger();
        private final Set<Path> open = ConcurrentHashMap.newKeySet();

        FailingOutputs(Map<Integer, Failure> failing) {
            this.failing = failing;
        }

        /** Files that failed as told. */
        int failed() {
            return failed.get();
        }

        /** Files whose stream was opened and not closed. */
        Set<Path> openStreams() {
            return Set.copyOf(open);
        }

        @Override
        public OutputFile create(Path path) {
            LocalOutputFile local = new LocalOutputFile(path);
            Failure failure = failing.get(created.incrementAndGet());
            return new OutputFile() {
                @Override
                public PositionOutputStream create(long blockSize) throws IOException {
                    return new Stream(path, local.create(blockSize), failure);
                }

                @Override
                public PositionOutputStream createOrOverwrite(long blockSize) throws IOException {
                    return new Stream(path, local.createOrOverwrite(blockSize), failure);
                }

                @Override
                public boolean supportsBlockSize() {
                    return local.supportsBlockSize();
                }

                @Override
                public long defaultBlockSize() {
                    return local.defaultBlockSize();
                }

                @Override
                public String getPath() {
                    return local.getPath();
                }
            };
        }

        private final class Stream extends PositionOutputStream {
            private final Path path;
            private final PositionOutputStream delegate;
            private final @Nullable Failure failure;
            private long written;
            private boolean hasFailed;

            Stream(Path path, PositionOutputStream delegate, @Nullable Failure failure) {
                this.path = path;
                this.delegate = delegate;
                this.failure = failure;
                open.add(path);
            }

            @Override
            public long getPos() throws IOException {
                return delegate.getPos();
            }

            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                if (failure != null && (hasFailed ? !failure.outOfMemory() : written + len > failure.after())) {
                    if (!hasFailed) {
                        int fits = (int) (failure.after() - written);
                        delegate.write(b, off, fits);
                        written += fits;
                        hasFailed = true;
                        failed.incrementAndGet();
                    }
                    if (failure.outOfMemory()) {
                        throw new OutOfMemoryError("Java heap space (thrown by the test inside the Parquet writer)");
                    }
                    throw new IOException("No space left on device (thrown by the test inside the Parquet writer)");
                }
                delegate.write(b, off, len);
                written += len;
            }

            @Override
            public void flush() throws IOException {
                delegate.flush();
            }

            @Override
            public void close() throws IOException {
                open.remove(path);
                delegate.close();
            }
        }
    }
}
