package io.nemolens.app.archive;

import io.nemolens.archive.iceberg.LocalFileIO;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.jdbc.JdbcClientPool;
import org.jspecify.annotations.Nullable;

/**
 * The Iceberg tables of a service's archive, as a reader outside the service sees them: the data files the table's
 * current snapshot holds (read with DuckDB by the tests), from the same catalog on the same folder.
 */
final class ArchivedTables implements AutoCloseable {

    private final JdbcCatalog catalog;
    private final String namespace;
    private final @Nullable Path buckets;

    /**
     * @param uri the catalog's database ({@code jdbc:sqlite:...}, {@code jdbc:postgresql://...})
     * @param user its user, or {@code null}
     * @param archive the archive's folder, where the tables are
     */
    ArchivedTables(String uri, @Nullable String user, Path archive, String namespace) {
        this(uri, user, archive, namespace, null);
    }

    /**
     * @param buckets with the tables in a bucket of s3proxy: the folder where it keeps its buckets' objects, each
     *     bucket a folder ({@code s3://bucket/key} is read from {@code <buckets>/bucket/key})
     */
    ArchivedTables(String uri, @Nullable String user, Path archive, String namespace, @Nullable Path buckets) {
        this.namespace = namespace;
        this.buckets = buckets;
        this.catalog = new JdbcCatalog(
                ignored -> buckets == null ? new LocalFileIO() : new BucketFolder(buckets),
                p -> new JdbcClientPool(uri, p),
                false);
        Map<String, String> properties = new java.util.HashMap<>(
                Map.of("uri", uri, "warehouse", archive.toAbsolutePath().toString()));
        if (user != null) {
            properties.put("jdbc.user", user);
        }
        catalog.initialize("lens", properties);
    }

    /** The table, as its catalog has it now. */
    Table table(String name) {
        return catalog.loadTable(TableIdentifier.of(namespace, name));
    }

    /** The files of the table's current snapshot. */
    List<Path> files(String name) throws java.io.IOException {
        List<Path> files = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = table(name).newScan().planFiles()) {
            for (FileScanTask t : tasks) {
                files.add(local(t.file().location()));
            }
        }
        return files;
    }

    /** The files of one snapshot of the table. */
    List<Path> files(String name, long snapshotId) throws java.io.IOException {
        List<Path> files = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks =
                table(name).newScan().useSnapshot(snapshotId).planFiles()) {
            for (FileScanTask t : tasks) {
                files.add(local(t.file().location()));
            }
        }
        return files;
    }

    private Path local(String location) {
        return buckets == null ? Path.of(location) : BucketFolder.local(buckets, location);
    }

    /** s3proxy's buckets read from the folder it keeps them in, as the tables' file IO (reading only). */
    private static final class BucketFolder implements FileIO {
        private static final long serialVersionUID = 1L;
        private final String buckets;

        BucketFolder(Path buckets) {
            this.buckets = buckets.toString();
        }

        static Path local(Path buckets, String location) {
            if (!location.startsWith("s3://")) {
                throw new IllegalArgumentException("not in a bucket: " + location);
            }
            return buckets.resolve(location.substring("s3://".length()));
        }

        @Override
        public InputFile newInputFile(String path) {
            return org.apache.iceberg.Files.localInput(
                    local(Path.of(buckets), path).toFile());
        }

        @Override
        public OutputFile newOutputFile(String path) {
            throw new UnsupportedOperationException("a reader of the tables writes nothing: " + path);
        }

        @Override
        public void deleteFile(String path) {
            throw new UnsupportedOperationException("a reader of the tables deletes nothing: " + path);
        }
    }

    /** DuckDB's {@code read_parquet} of exactly these files. */
    static String readParquet(List<Path> files) {
        StringBuilder list = new StringBuilder("read_parquet([");
        for (int i = 0; i < files.size(); i++) {
            list.append(i == 0 ? "'" : ", '").append(files.get(i)).append('\'');
        }
        return list.append("], hive_partitioning = false)").toString();
    }

    @Override
    public void close() throws Exception {
        catalog.close();
    }
}
