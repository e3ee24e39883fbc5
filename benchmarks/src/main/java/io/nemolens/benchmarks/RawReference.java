package io.nemolens.benchmarks;

import io.nemolens.archive.ArchiveOptions;
import io.nemolens.archive.DirectWriter;
import io.nemolens.decode.DecodedMessage;
import io.nemolens.decode.MessageIds;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.handlers.MessageInfo;
import io.nemolens.handlers.ReceivedMessage;
import io.nemolens.handlers.Signal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.function.IntFunction;

/**
 * The end-to-end bench's reference: the raw one-writer rate of the same rows.
 *
 * @param rowsPerSecond rows written per second of writing
 * @param files files written
 * @param decodeNanosPerRow decoding time per row, measured apart (not in the rate)
 */
record RawReference(double rowsPerSecond, int files, double decodeNanosPerRow) {

    /** A message of spans, decoded, as the consumer hands it to the archive. */
    static ReceivedMessage spans(byte[] body, DecodedMessage decoded) {
        MessageInfo info = new MessageInfo(
                MessageIds.of(body),
                Signal.SPANS,
                decoded.encoding(),
                "",
                "otlp_spans",
                body.length,
                false,
                decoded.source());
        return new ReceivedMessage(info, body, Instant.now(), decoded.records());
    }

    /**
     * Writes the rows of the span messages {@code bodies(first)} to {@code bodies(first + count - 1)} with the
     * archive's Parquet writing alone on this thread ({@link DirectWriter}, the test fixture of the archive's
     * test-jar, assembled as the archive assembles it), timing only the writing: each
     * message is generated and decoded first, untimed (decoding is timed apart and reported). Files are cut
     * as the archive cuts them and committed at the end, so that all of the Parquet work (encoding,
     * compression, close, fsync, rename) is timed.
     */
    static RawReference measure(IntFunction<byte[]> bodies, int first, int count) throws IOException {
        Path dir = Files.createTempDirectory("lens-bench-raw");
        OtlpDecoder decoder = new OtlpDecoder();
        long writeNanos = 0;
        long decodeNanos = 0;
        long rows = 0;
        long closeStarted;
        try {
            try (DirectWriter writer = new DirectWriter(ArchiveOptions.defaults(dir), Clock.systemUTC())) {
                for (int i = first; i < first + count; i++) {
                    byte[] body = bodies.apply(i);
                    long d = System.nanoTime();
                    DecodedMessage decoded = decoder.decode(Signal.SPANS, body, null);
                    decodeNanos += System.nanoTime() - d;
                    ReceivedMessage message = spans(body, decoded);
                    long t = System.nanoTime();
                    writer.write(message);
                    writeNanos += System.nanoTime() - t;
                    rows += decoded.records().count();
                }
                closeStarted = System.nanoTime();
            } // closing commits every open file: timed too
            writeNanos += System.nanoTime() - closeStarted;
            return new RawReference(
                    rows / (writeNanos / 1e9), ArchiveFiles.under(dir).count(), (double) decodeNanos / rows);
        } finally {
            ArchiveFiles.delete(dir);
        }
    }
}
