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
import org.apache.iceberg.jdbc.JdbcCatalog;
import org.apache.iceberg.jdbc.JdbcClientPool;

/**
 * The Iceberg tables of a service's archive, as a reader outside the service sees them: the data files the table's
 * current snapshot holds (read with DuckDB by the tests), from the same catalog on the same folder.
 */
final class ArchivedTables implements AutoCloseable {

    private final JdbcCatalog catalog;
    private final String namespace;

    /**
     * @param uri the catalog's database ({@code jdbc:sqlite:...}, {@code jdbc:postgresql://...})
     * @param user its user, or {@code null}
     * @param archive the archive's folder, where the tables are
     */
    ArchivedTables(String uri, String user, Path archive, String namespace) {
        this.namespace = namespace;
        this.catalog = new JdbcCatalog(ignored -> new LocalFileIO(), p -> new JdbcClientPool(uri, p), false);
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
                files.add(Path.of(t.file().location()));
            }
        }
        return files;
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
