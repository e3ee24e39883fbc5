package io.nemolens.benchmarks;

import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The committed Parquet files under an archive's folder ({@code part-*.parquet}; not the spool, not the
 * hidden temporary files of files being written), with their sizes, and what the bench prints of them.
 */
final class ArchiveFiles {

    private final Map<Path, Long> sizes;

    private ArchiveFiles(Map<Path, Long> sizes) {
        this.sizes = sizes;
    }

    static ArchiveFiles under(Path root) throws IOException {
        Map<Path, Long> sizes = new HashMap<>();
        if (!Files.exists(root)) {
            return new ArchiveFiles(sizes); // an object store's prefix before its first object
        }
        // hidden folders (the spool, whose segments are deleted as the walk goes) are passed over, and so is a file
        // or folder gone between being listed and being looked at
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                Path name = dir.getFileName();
                return !dir.equals(root) && name != null && name.toString().startsWith(".")
                        ? FileVisitResult.SKIP_SUBTREE
                        : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                String name = file.getFileName().toString();
                if (name.startsWith("part-") && name.endsWith(".parquet") && attrs.isRegularFile()) {
                    sizes.put(file, attrs.size());
                }
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                if (e instanceof NoSuchFileException) {
                    return FileVisitResult.CONTINUE;
                }
                throw e;
            }
        });
        return new ArchiveFiles(sizes);
    }

    /** The files here that {@code before} did not have. */
    ArchiveFiles since(ArchiveFiles before) {
        Map<Path, Long> added = new HashMap<>(sizes);
        added.keySet().removeAll(before.sizes.keySet());
        return new ArchiveFiles(added);
    }

    int count() {
        return sizes.size();
    }

    long bytes() {
        return sizes.values().stream().mapToLong(Long::longValue).sum();
    }

    /** The median file size in bytes (the mean of the middle two for an even count), 0 when none. */
    double medianBytes() {
        long[] s = sizes.values().stream().mapToLong(Long::longValue).sorted().toArray();
        if (s.length == 0) {
            return 0;
        }
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2.0;
    }

    /** Files per run, from the {@code run_id=} folder each file is in (all tables and dates together). */
    Map<String, Integer> perRun() {
        Map<String, Integer> out = new TreeMap<>();
        for (Path p : sizes.keySet()) {
            Path parent = p.getParent();
            String folder = parent == null ? "" : parent.getFileName().toString();
            String run = folder.startsWith("run_id=") ? folder.substring("run_id=".length()) : "(no run folder)";
            out.merge(run, 1, Integer::sum);
        }
        return out;
    }

    /** Deletes an archive's folder (a bench's temporary one) with everything in it; nothing when it is gone. */
    static void delete(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
