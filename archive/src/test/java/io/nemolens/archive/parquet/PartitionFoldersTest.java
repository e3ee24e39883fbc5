package io.nemolens.archive.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Whose fault a partition folder that cannot be made is: the name's (the message's, permanent) when the
 * file system refuses it while it makes a plain folder in the same place, else the environment's. Real
 * refusals of this machine's file system where a test can cause them (a name too long, a NUL, files in the
 * way); the others (permissions, a full disk, a read-only file system, an illegal byte sequence) as the
 * JDK reports them, through the archive's {@link OutputFiles} seam.
 */
class PartitionFoldersTest {

    private static final String DATE = "2026-01-01";

    @TempDir
    Path root;

    @Test
    void aFolderThatIsMadeOrAlreadyThereIsNoFailure() throws Exception {
        PartitionKey key = PartitionKey.of("spans", DATE, "run-1");
        assertThat(folders(OutputFiles.LOCAL).make(key)).isNull();
        assertThat(key.directory(root)).isDirectory();
        assertThat(folders(OutputFiles.LOCAL).make(key)).isNull();
    }

    @Test
    void aNameTooLongForTheFileSystemIsTheNamesFault() throws Exception {
        // what the rule of PartitionKey never makes: a folder name of 307 bytes (ENAMETOOLONG)
        PartitionKey key = new PartitionKey("spans", DATE, "x".repeat(300), "x".repeat(300));
        PartitionFolders.Failure failure = folders(OutputFiles.LOCAL).make(key);
        assertThat(failure).isNotNull();
        assertThat(failure.fault()).isEqualTo(PartitionFolders.Fault.NAME);
        assertThat(failure.cause()).isInstanceOf(FileSystemException.class);
        assertThat(failure.reason())
                .startsWith(
                        "the file system refuses the name of the partition folder spans/date=2026-01-01/run_id=xxx");
        assertNothingLeftBeside(key);
    }

    @Test
    void aNameThatMakesNoPathIsTheNamesFault() {
        PartitionKey key = new PartitionKey("spans", DATE, "a\u0000b", "a\u0000b");
        PartitionFolders.Failure failure = folders(OutputFiles.LOCAL).make(key);
        assertThat(failure).isNotNull();
        assertThat(failure.fault()).isEqualTo(PartitionFolders.Fault.NAME);
        assertThat(failure.cause()).isInstanceOf(InvalidPathException.class);
    }

    @Test
    void aNameTheFileSystemRefusesForItsCharactersIsTheNamesFault() throws Exception {
        // as a file system that holds UTF-8 names only refuses others (EILSEQ): for that name alone
        OutputFiles refusing = refusing(
                dir -> dir.getFileName().toString().contains("refused"),
                dir -> new FileSystemException(
                        dir.toString(), null, "Invalid or incomplete multibyte or wide character"));
        PartitionKey key = PartitionKey.of("spans", DATE, "refused");
        PartitionFolders.Failure failure = folders(refusing).make(key);
        assertThat(failure).isNotNull();
        assertThat(failure.fault()).isEqualTo(PartitionFolders.Fault.NAME);
        assertNothingLeftBeside(key);
    }

    @Test
    void permissionsAreTheEnvironmentsFault() {
        OutputFiles denied = refusing(dir -> true, dir -> new AccessDeniedException(dir.toString()));
        assertEnvironmentsFault(denied);
    }

    @Test
    void aFullDiskIsTheEnvironmentsFault() {
        // mkdir gets ENOSPC whatever the name
        assertEnvironmentsFault(
                refusing(dir -> true, dir -> new FileSystemException(dir.toString(), null, "No space left on device")));
    }

    @Test
    void aReadOnlyFileSystemIsTheEnvironmentsFault() {
        assertEnvironmentsFault(
                refusing(dir -> true, dir -> new FileSystemException(dir.toString(), null, "Read-only file system")));
    }

    @Test
    void aFileWhereTheTableFolderMustBeIsTheEnvironmentsFault() throws Exception {
        Files.writeString(root.resolve("spans"), "a regular file where the spans folder must be");
        PartitionFolders.Failure failure = folders(OutputFiles.LOCAL).make(PartitionKey.of("spans", DATE, "run-1"));
        assertThat(failure).isNotNull();
        assertThat(failure.fault()).isEqualTo(PartitionFolders.Fault.ENVIRONMENT);
        assertThat(failure.reason())
                .startsWith("the partition folder cannot be made: spans/date=2026-01-01/run_id=run-1");
    }

    @Test
    void aFileWhereThePartitionFolderMustBeIsTheEnvironmentsFault() throws Exception {
        PartitionKey key = PartitionKey.of("spans", DATE, "run-1");
        Files.createDirectories(key.directory(root).getParent());
        Files.writeString(key.directory(root), "a regular file where the run's folder must be");
        PartitionFolders.Failure failure = folders(OutputFiles.LOCAL).make(key);
        assertThat(failure).isNotNull();
        assertThat(failure.fault()).isEqualTo(PartitionFolders.Fault.ENVIRONMENT);
    }

    @Test
    void aFailureThatPassesWhileTheNameIsTestedIsNoFailure() {
        // ENOSPC for the first attempt only: space came back before the plain folder was made beside it
        AtomicInteger attempts = new AtomicInteger();
        OutputFiles once = refusing(
                dir -> dir.getFileName().toString().equals("run_id=run-1") && attempts.incrementAndGet() == 1,
                dir -> new FileSystemException(dir.toString(), null, "No space left on device"));
        PartitionKey key = PartitionKey.of("spans", DATE, "run-1");
        assertThat(folders(once).make(key)).isNull();
        assertThat(key.directory(root)).isDirectory();
    }

    private void assertEnvironmentsFault(OutputFiles outputs) {
        PartitionKey key = PartitionKey.of("spans", DATE, "run-1");
        PartitionFolders.Failure failure = folders(outputs).make(key);
        assertThat(failure).isNotNull();
        assertThat(failure.fault()).isEqualTo(PartitionFolders.Fault.ENVIRONMENT);
        assertThat(failure.key()).isEqualTo(key);
    }

    private void assertNothingLeftBeside(PartitionKey key) throws IOException {
        Path date = key.directory(root).getParent();
        try (Stream<Path> left = Files.list(date)) {
            assertThat(left).as("folders left in %s", date).isEmpty();
        }
    }

    private PartitionFolders folders(OutputFiles outputs) {
        return new PartitionFolders(root, "3f2a9c1d4e5b", outputs);
    }

    /** Local files, but making a folder {@code refused} accepts fails with the exception {@code failure} gives. */
    private static OutputFiles refusing(
            Predicate<Path> refused, java.util.function.Function<Path, IOException> failure) {
        return new OutputFiles() {
            @Override
            public org.apache.parquet.io.OutputFile create(Path path) {
                return new org.apache.parquet.io.LocalOutputFile(path);
            }

            @Override
            public void createDirectories(Path dir) throws IOException {
                if (refused.test(dir)) {
                    throw failure.apply(dir);
                }
                Files.createDirectories(dir);
            }
        };
    }
}
