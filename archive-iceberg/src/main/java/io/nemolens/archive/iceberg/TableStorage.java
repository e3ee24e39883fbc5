package io.nemolens.archive.iceberg;

import org.apache.iceberg.io.FileIO;

/**
 * Where the archive's files are, as the tables see them: the file IO that reads them and writes the tables' metadata,
 * and the root every file's name is relative to.
 *
 * @param io the archive's folder ({@link LocalFileIO}) or its bucket (Iceberg's {@code S3FileIO} on the archive's own
 *     S3 client)
 * @param root the folder's absolute path, or {@code s3://bucket/prefix}
 */
public record TableStorage(FileIO io, String root) {}
