package io.nemolens.archive.parquet;

import java.io.IOException;
import java.nio.file.Path;
import org.apache.parquet.io.LocalOutputFile;
import org.apache.parquet.io.OutputFile;

/** Where a Parquet file's bytes go: a local file, or (in fault tests) one that fails when told to. */
@FunctionalInterface
public interface OutputFiles {

    /** Plain local files. */
    OutputFiles LOCAL = LocalOutputFile::new;

    /** The output of the file at {@code path} (its temporary name). */
    OutputFile create(Path path) throws IOException;
}
