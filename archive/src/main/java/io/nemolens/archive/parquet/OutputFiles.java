package io.nemolens.archive.parquet;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.OutputFile;

/**
 * Where a Parquet file goes: its folder and its bytes; local files, or (in fault tests) ones that fail when
 * told to.
 */
@FunctionalInterface
public interface OutputFiles {

    /** Plain local files. */
    OutputFiles LOCAL = LocalOutputFile::new;

    /** The output of the file at {@code path} (its temporary name). */
    OutputFile create(Path path) throws IOException;

    /** Makes a folder and its parents, as {@link Files#createDirectories} does (a partition's folder). */
    default void createDirectories(Path dir) throws IOException {
        Files.createDirectories(dir);
    }
}
