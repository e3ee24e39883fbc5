package io.nemolens.archive.table;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import org.apache.parquet.schema.MessageType;

/**
 * The tables the archive's committed files become part of: a catalog's (Apache Iceberg's, in
 * {@code lens-archive-iceberg}). Without one the archive is its folder (or bucket) of Parquet files alone.
 *
 * <p>At start, before any file is written, the archive has each table {@linkplain #prepare prepared}: it exists
 * with the archive's columns and says the field id of each, which every file of the table then carries. Once the
 * archive's store holds a file, the archive hands it here, gathered with the other files published meanwhile
 * ({@link #append}, on one thread); the spool entries a file has rows of are released only once this returned.
 *
 * <p>Every failure is an {@link IOException}, retried by the archive with backoff for as long as it lasts (nothing
 * is acknowledged beyond what the spool holds meanwhile). Implementations must be thread-safe.
 */
public interface ArchiveTables extends AutoCloseable {

    /** Where the tables are, for status, health and logs (never with a password). */
    String location();

    /**
     * Makes a table exist with the archive's columns: created when it does not exist, a column the archive has and
     * the table lacks added (optional: the rows of files before it read as null); no column is ever dropped,
     * renamed or given another type.
     *
     * @param table the table's name ({@code spans}, {@code metrics}, {@code logs}, {@code gpu_metrics},
     *     {@code node_metrics})
     * @param columns the archive's Parquet schema of the table, with the field ids a new table would give it
     * @return the same schema with the table's field ids
     * @throws IOException when the catalog cannot answer now
     * @throws IllegalStateException when the table holds a column of the archive's under another type: the archive
     *     does not start (a column is never given another type silently)
     */
    MessageType prepare(String table, MessageType columns) throws IOException;

    /**
     * Appends published files to their tables, and returns once the tables hold them. A file a table holds already
     * (appended before, perhaps just before a crash, or adopted by the tables' maintenance while its writer was away)
     * is not appended again, in this call or in one of its retries. Files come in their writer's order (see
     * {@link TableFile}).
     *
     * @throws IOException when the catalog failed: nothing or some of the files were appended, and the archive
     *     calls again with all of them
     */
    void append(List<TableFile> files) throws IOException;

    /**
     * The highest number of this writer's files the table holds (see {@link TableFile}), or -1 when it holds none of
     * them: the archive numbers its files above it at start.
     *
     * @throws IOException when the catalog cannot answer now
     */
    long appended(String table, String writer) throws IOException;

    /**
     * How long published files gather before they are appended, in one commit per table (each wave up to a fifth
     * sooner, so that instances sharing a catalog part, never later): longer means fewer snapshots, later visibility.
     */
    default Duration commitInterval() {
        return Duration.ofSeconds(10);
    }

    @Override
    void close();
}
