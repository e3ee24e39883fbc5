package io.nemolens.archive.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * Iceberg's file IO over the archive's own folder, without Hadoop: locations are plain absolute paths, as the
 * archive's data files are. A file is written under a hidden temporary name beside its place, forced, and then
 * linked to its name (which fails if the name exists: Iceberg's {@code create()}) and its folder forced: a table's
 * metadata is never seen half written, nor lost to a crash after the catalog pointed to it. Reading is Iceberg's
 * own local input file. Deleting many files deletes them one after another on the caller's thread
 * ({@link SupportsBulkOperations}): Iceberg would otherwise delete them on its shared worker pool, which its own JVM
 * shutdown hook ends while the archive still appends its last files at a stop.
 */
public final class LocalFileIO implements SupportsPrefixOperations, SupportsBulkOperations {

    private static final long serialVersionUID = 1L;

    @Override
    public InputFile newInputFile(String path) {
        return org.apache.iceberg.Files.localInput(path);
    }

    @Override
    public OutputFile newOutputFile(String path) {
        return new LocalOutput(Path.of(path));
    }

    @Override
    public void deleteFile(String path) {
        try {
            Files.deleteIfExists(Path.of(path));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + path + ": " + e.getMessage(), e);
        }
    }

    /** Deletes the files one after another; one that cannot be deleted is counted and the rest are still tried. */
    @Override
    public void deleteFiles(Iterable<String> paths) throws BulkDeletionFailureException {
        int failed = 0;
        for (String path : paths) {
            try {
                Files.deleteIfExists(Path.of(path));
            } catch (IOException e) {
                failed++;
            }
        }
        if (failed > 0) {
            throw new BulkDeletionFailureException(failed);
        }
    }

    /** Every file under {@code prefix} (a folder), with its size and last-modified time. */
    @Override
    public Iterable<FileInfo> listPrefix(String prefix) {
        Path root = Path.of(prefix);
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        List<FileInfo> files = new ArrayList<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : (Iterable<Path>) walk::iterator) {
                BasicFileAttributes a;
                try {
                    a = Files.readAttributes(p, BasicFileAttributes.class);
                } catch (NoSuchFileException gone) {
                    continue; // removed while listed
                }
                if (a.isRegularFile()) {
                    files.add(new FileInfo(
                            p.toString(), a.size(), a.lastModifiedTime().toMillis()));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + prefix + ": " + e.getMessage(), e);
        }
        return files;
    }

    @Override
    public void deletePrefix(String prefix) {
        Path root = Path.of(prefix);
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + prefix + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Map<String, String> properties() {
        return Map.of();
    }

    /** A file written under a temporary name, then linked to its own and its folder forced. */
    private static final class LocalOutput implements OutputFile {
        private final Path path;

        LocalOutput(Path path) {
            this.path = path;
        }

        @Override
        public PositionOutputStream create() {
            if (Files.exists(path)) {
                throw new AlreadyExistsException("File already exists: %s", path);
            }
            return open(false);
        }

        @Override
        public PositionOutputStream createOrOverwrite() {
            return open(true);
        }

        private PositionOutputStream open(boolean overwrite) {
            Path folder = path.toAbsolutePath().getParent();
            if (folder == null) {
                throw new NotFoundException("no folder for %s", path);
            }
            try {
                Files.createDirectories(folder);
                Path temporary = folder.resolve("." + path.getFileName() + "." + System.nanoTime() + ".tmp");
                FileChannel channel =
                        FileChannel.open(temporary, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                return new TemporaryThenLinked(channel, temporary, path, folder, overwrite);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create " + path + ": " + e.getMessage(), e);
            }
        }

        @Override
        public String location() {
            return path.toString();
        }

        @Override
        public InputFile toInputFile() {
            return org.apache.iceberg.Files.localInput(path.toFile());
        }

        @Override
        public String toString() {
            return location();
        }
    }

    private static final class TemporaryThenLinked extends PositionOutputStream {
        private final FileChannel channel;
        private final Path temporary;
        private final Path target;
        private final Path folder;
        private final boolean overwrite;
        private long position;
        private boolean closed;

        TemporaryThenLinked(FileChannel channel, Path temporary, Path target, Path folder, boolean overwrite) {
            this.channel = channel;
            this.temporary = temporary;
            this.target = target;
            this.folder = folder;
            this.overwrite = overwrite;
        }

        @Override
        public long getPos() {
            return position;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            ByteBuffer buffer = ByteBuffer.wrap(b, off, len);
            while (buffer.hasRemaining()) {
                channel.write(buffer);
            }
            position += len;
        }

        @Override
        public void close() throws IOException {
            if (closed) {
                return;
            }
            closed = true;
            try {
                channel.force(true);
                channel.close();
                if (overwrite) {
                    Files.move(temporary, target, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
                } else {
                    try {
                        Files.createLink(target, temporary);
                    } catch (FileAlreadyExistsException e) {
                        throw new AlreadyExistsException("File already exists: %s", target);
                    }
                    Files.delete(temporary);
                }
                try (FileChannel dir = FileChannel.open(folder, StandardOpenOption.READ)) {
                    dir.force(true);
                }
            } finally {
                Files.deleteIfExists(temporary);
            }
        }
    }
}
