package io.nemolens.archive.compaction;

import io.nemolens.archive.ArchiveOptions;
import io.nemolens.archive.ParquetArchive;
import io.nemolens.archive.parquet.Tables;
import io.nemolens.archive.testing.Messages;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.handlers.Signal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.parquet.io.InputFile;
import org.apache.parquet.io.LocalInputFile;
import org.apache.parquet.io.LocalOutputFile;

/**
 * How fast {@link ParquetCompactor} compacts (a main, not a test): the archive writes {@code messages} span messages
 * of {@code spans} spans each, one file per message, and they are compacted into one file, {@code runs} times; each
 * run prints rows a second and input megabytes (compressed, as on disk) a second. Arguments: messages, spans, runs
 * (200, 1000, 5). Figures: BENCHMARKS.md, "Compaction".
 */
public final class CompactionSpeed {

    private CompactionSpeed() {}

    public static void main(String[] args) throws Exception {
        int messages = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        int spans = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 5;
        Path dir = Files.createTempDirectory("compaction-speed");
        try {
            OtlpDecoder decoder = new OtlpDecoder();
            ParquetArchive archive = ParquetArchive.builder(ArchiveOptions.defaults(dir.resolve("in")), decoder)
                    .open();
            try {
                for (int i = 0; i < messages; i++) {
                    byte[] body =
                            NemoLensRequests.spans(spans, "run-speed", i % 8, i).toByteArray();
                    archive.accept(Messages.received(decoder.decode(Signal.SPANS, body, null), body))
                            .toCompletableFuture()
                            .get(30, TimeUnit.SECONDS);
                    archive.commitNow();
                }
            } finally {
                archive.close();
            }
            List<Path> files;
            try (Stream<Path> walk = Files.walk(dir.resolve("in/spans"))) {
                files = walk.filter(p -> p.toString().endsWith(".parquet"))
                        .sorted()
                        .toList();
            }
            long inputBytes = 0;
            for (Path f : files) {
                inputBytes += Files.size(f);
            }
            List<InputFile> inputs =
                    files.stream().<InputFile>map(LocalInputFile::new).toList();
            ParquetCompactor compactor = new ParquetCompactor(ArchiveOptions.Compression.ZSTD, 1);
            for (int run = 0; run < runs; run++) {
                Path out = dir.resolve("out-" + run + ".parquet");
                long start = System.nanoTime();
                ParquetCompactor.Result result = compactor.compact(
                        Tables.defaults().schemas().get("spans"),
                        inputs,
                        Set.of(),
                        1L << 40,
                        () -> new ParquetCompactor.Output(new LocalOutputFile(out), out.toString()));
                double seconds = (System.nanoTime() - start) / 1e9;
                System.out.printf(
                        Locale.ROOT,
                        "run %d: %d files, %d rows, %.1f MB in, %.1f MB out (%.1f MB uncompressed) in %d row groups:"
                                + " %.2f s, %.0f rows/s, %.1f MB/s in%n",
                        run,
                        files.size(),
                        result.rowsWritten(),
                        inputBytes / 1e6,
                        result.files().get(0).bytes() / 1e6,
                        result.files().get(0).footer().getBlocks().stream()
                                        .mapToLong(b -> b.getTotalByteSize())
                                        .sum()
                                / 1e6,
                        result.files().get(0).footer().getBlocks().size(),
                        seconds,
                        result.rowsRead() / seconds,
                        inputBytes / 1e6 / seconds);
                Files.delete(out);
            }
        } finally {
            try (Stream<Path> walk = Files.walk(dir)) {
                walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }
}
