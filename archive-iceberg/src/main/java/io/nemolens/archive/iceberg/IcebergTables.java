package io.nemolens.archive.iceberg;

import io.nemolens.archive.table.ArchiveTables;
import io.nemolens.archive.table.TableFile;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotAncestryValidator;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.mapping.MappingUtil;
import org.apache.iceberg.mapping.NameMappingParser;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The archive's tables in an Apache Iceberg catalog: one table per kind of record in a namespace of its own,
 * partitioned as the archive's folders are ({@code date}, then {@code run_id}, both identity), located on the
 * archive's own storage ({@code <root>/<table>}, its metadata under {@code metadata/}), its files the archive's own
 * Parquet files, appended with the metrics of their footers.
 *
 * <p><b>Exactly once.</b> Every append records the content ids of its files in its snapshot's summary
 * ({@value #CONTENT_IDS}), and is validated, inside every one of Iceberg's commit retries, against the summaries of
 * the table's history ({@link SnapshotAncestryValidator}): a file whose content id a snapshot holds already (appended
 * before a crash, or by a commit whose outcome was unknown) is never appended again. A file found at start is also
 * looked for among the table's live files, in case the snapshot that appended it has expired since.
 *
 * <p>Every catalog failure is an {@link IOException}: the archive tries again with backoff. Thread-safe.
 */
public final class IcebergTables implements ArchiveTables {

    private static final Logger log = LoggerFactory.getLogger(IcebergTables.class);

    /** The snapshot summary key of the content ids of the files an append added, separated by spaces. */
    public static final String CONTENT_IDS = "lens.content-ids";

    /** How often an append whose validation found some of its files appended meanwhile is tried with the rest. */
    private static final int VALIDATION_ROUNDS = 3;

    private final Catalog catalog;
    private final Namespace namespace;
    private final String root;
    private final String location;
    private final Duration commitInterval;
    private final Map<String, String> tableProperties;
    private final Map<String, Table> tables = new ConcurrentHashMap<>();
    /** The archive's schema of each table as prepared, with the table's ids: what its files carry. */
    private final Map<String, MessageType> prepared = new ConcurrentHashMap<>();

    /**
     * @param catalog the catalog (closed with these tables when it is {@link AutoCloseable})
     * @param namespace the tables' namespace, made if missing
     * @param root where the archive's files are: its folder's absolute path, or {@code s3://bucket/prefix}; a table's
     *     location is {@code <root>/<table>}
     * @param location where the tables are, for status and logs (never with a password)
     * @param commitInterval how long files gather before they are appended
     * @param tableProperties properties a new table is made with, beside the archive's own
     */
    public IcebergTables(
            Catalog catalog,
            Namespace namespace,
            String root,
            String location,
            Duration commitInterval,
            Map<String, String> tableProperties) {
        this.catalog = catalog;
        this.namespace = namespace;
        this.root = root.endsWith("/") ? root.substring(0, root.length() - 1) : root;
        this.location = location;
        this.commitInterval = commitInterval;
        this.tableProperties = Map.copyOf(tableProperties);
    }

    /**
     * The archive's tables in the catalog the settings name, on the archive's storage: the JDBC catalog (PostgreSQL,
     * SQLite) with the storage's file IO for the tables' metadata, or a REST catalog.
     */
    public static IcebergTables open(CatalogSettings settings, TableStorage storage) {
        return Catalogs.open(settings, storage);
    }

    @Override
    public String location() {
        return location;
    }

    @Override
    public Duration commitInterval() {
        return commitInterval;
    }

    /** The table of this name, as the archive prepared it. */
    public Table table(String name) {
        Table t = tables.get(name);
        if (t == null) {
            throw new IllegalStateException("the table " + name + " is not prepared");
        }
        return t;
    }

    /** The archive's schema of a prepared table, with the table's field ids: what its files carry. */
    public MessageType schema(String name) {
        MessageType schema = prepared.get(name);
        if (schema == null) {
            throw new IllegalStateException("the table " + name + " is not prepared");
        }
        return schema;
    }

    /** The tables prepared so far, by name. */
    public Map<String, Table> tables() {
        return Map.copyOf(tables);
    }

    /** The identifier of a table of the archive. */
    public TableIdentifier identifier(String table) {
        return TableIdentifier.of(namespace, table);
    }

    @Override
    public MessageType prepare(String table, MessageType columns) throws IOException {
        try {
            Table t = loadOrCreate(table, columns);
            List<String> added = TableSchemas.grow(t, columns);
            if (!added.isEmpty()) {
                log.info("added the columns {} to the Iceberg table {}", added, identifier(table));
            }
            MessageType withIds = TableSchemas.withIds(columns, t.schema());
            tables.put(table, t);
            prepared.put(table, withIds);
            return withIds;
        } catch (IllegalStateException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new IOException("preparing the Iceberg table " + identifier(table) + " failed: " + e, e);
        }
    }

    private Table loadOrCreate(String table, MessageType columns) {
        TableIdentifier id = identifier(table);
        if (catalog instanceof SupportsNamespaces namespaces && !namespaces.namespaceExists(namespace)) {
            try {
                namespaces.createNamespace(namespace);
            } catch (AlreadyExistsException e) {
                // another instance made it meanwhile
            }
        }
        try {
            return catalog.loadTable(id);
        } catch (NoSuchTableException e) {
            Schema schema = TableSchemas.icebergOf(columns);
            Map<String, String> properties = new LinkedHashMap<>(tableProperties);
            properties.putIfAbsent(TableProperties.FORMAT_VERSION, "2");
            properties.putIfAbsent(TableProperties.PARQUET_COMPRESSION, "zstd");
            properties.putIfAbsent(TableProperties.COMMIT_NUM_RETRIES, "10");
            properties.putIfAbsent(TableProperties.METADATA_DELETE_AFTER_COMMIT_ENABLED, "true");
            properties.putIfAbsent(TableProperties.METADATA_PREVIOUS_VERSIONS_MAX, "20");
            // readers of files without field ids (none of the archive's) find columns by name
            properties.putIfAbsent(
                    TableProperties.DEFAULT_NAME_MAPPING, NameMappingParser.toJson(MappingUtil.create(schema)));
            try {
                Table created = catalog.buildTable(id, schema)
                        .withPartitionSpec(spec(schema))
                        .withLocation(root + "/" + table)
                        .withProperties(properties)
                        .create();
                log.info("created the Iceberg table {} at {}", id, created.location());
                return created;
            } catch (AlreadyExistsException raced) {
                return catalog.loadTable(id); // another instance made it meanwhile
            }
        }
    }

    /** The archive's partitioning: the record's date, then its run id, both as they are. */
    static PartitionSpec spec(Schema schema) {
        return PartitionSpec.builderFor(schema)
                .identity("date")
                .identity("run_id")
                .build();
    }

    @Override
    public void append(List<TableFile> files) throws IOException {
        Map<String, List<TableFile>> byTable = new LinkedHashMap<>();
        for (TableFile f : files) {
            byTable.computeIfAbsent(f.table(), t -> new ArrayList<>()).add(f);
        }
        for (Map.Entry<String, List<TableFile>> e : byTable.entrySet()) {
            try {
                append(e.getKey(), e.getValue());
            } catch (IOException | IllegalStateException failure) {
                throw failure instanceof IOException io ? io : new IOException(failure.getMessage(), failure);
            } catch (RuntimeException failure) {
                throw new IOException(
                        "appending " + e.getValue().size() + " files to the Iceberg table " + identifier(e.getKey())
                                + " failed: " + failure,
                        failure);
            }
        }
    }

    /** One commit: the files of one table that it does not hold yet. */
    private void append(String name, List<TableFile> files) throws IOException {
        Table table = current(name);
        List<TableFile> todo = new ArrayList<>(files);
        for (int round = 0; round < VALIDATION_ROUNDS; round++) {
            todo.removeIf(heldBy(table, todo)::contains);
            if (todo.isEmpty()) {
                return;
            }
            List<String> ids = todo.stream().map(TableFile::contentId).toList();
            AppendFiles append = table.newAppend();
            for (TableFile f : todo) {
                append.appendFile(dataFile(table, f));
            }
            append.set(CONTENT_IDS, String.join(" ", ids));
            append.validateWith(new NotAppendedBefore(ids));
            try {
                append.commit();
                log.debug("appended {} files to {}", todo.size(), identifier(name));
                return;
            } catch (ValidationException e) {
                // some were appended meanwhile (an earlier attempt whose outcome was unknown): the rest, again
                table.refresh();
            }
        }
        throw new IOException("appending to " + identifier(name) + " kept finding its files appended meanwhile");
    }

    /** The table, refreshed; made again (and told) when it was dropped by hand. */
    private Table current(String name) throws IOException {
        Table table = table(name);
        try {
            table.refresh();
            return table;
        } catch (NoSuchTableException dropped) {
            MessageType columns = Objects.requireNonNull(prepared.get(name), name);
            log.warn("the Iceberg table {} is gone (dropped by hand?): making it again", identifier(name));
            Table made = loadOrCreate(name, columns);
            TableSchemas.grow(made, columns);
            MessageType ids = TableSchemas.withIds(columns, made.schema());
            if (!ids.equals(columns)) {
                throw new IOException("the Iceberg table " + identifier(name) + " was made again with other field ids"
                        + " than the archive's files carry; restart the service to take the new ids");
            }
            tables.put(name, made);
            return made;
        }
    }

    /**
     * The files among these that the table holds already: their content ids are in a snapshot of its history; and
     * for a file found at start, among its live files by location too (its snapshot may have expired).
     */
    private Set<TableFile> heldBy(Table table, Collection<TableFile> files) throws IOException {
        Set<TableFile> held = new HashSet<>();
        Snapshot current = table.currentSnapshot();
        if (current == null) {
            return held;
        }
        List<String> summaries = new ArrayList<>();
        for (Snapshot s : SnapshotUtil.ancestorsOf(current.snapshotId(), table::snapshot)) {
            String ids = s.summary().get(CONTENT_IDS);
            if (ids != null) {
                summaries.add(ids);
            }
        }
        for (TableFile f : files) {
            for (String ids : summaries) {
                if (ids.contains(f.contentId())) {
                    held.add(f);
                    break;
                }
            }
        }
        for (TableFile f : files) {
            if (f.footer() == null && !held.contains(f) && live(table, f)) {
                held.add(f);
            }
        }
        return held;
    }

    /** Whether a file found at start is among the table's live files (looked for in its partition only). */
    private boolean live(Table table, TableFile f) throws IOException {
        String path = root + "/" + f.name();
        ParquetMetadata footer = Footers.read(table.io().newInputFile(path));
        TableDataFiles.Partition p = TableDataFiles.Partition.of(footer, path);
        Expression inPartition = Expressions.equal("date", p.date().toString());
        inPartition = Expressions.and(
                inPartition, p.runId() == null ? Expressions.isNull("run_id") : Expressions.equal("run_id", p.runId()));
        try (CloseableIterable<FileScanTask> tasks =
                table.newScan().filter(inPartition).planFiles()) {
            for (FileScanTask task : tasks) {
                if (task.file().location().equals(path)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** A file as the table's data file: its partition and metrics from its footer. */
    private DataFile dataFile(Table table, TableFile f) throws IOException {
        String path = root + "/" + f.name();
        ParquetMetadata footer = f.footer();
        long bytes = f.bytes();
        if (footer == null || bytes < 0) {
            var input = table.io().newInputFile(path);
            footer = footer != null ? footer : Footers.read(input);
            bytes = bytes >= 0 ? bytes : input.getLength();
        }
        return TableDataFiles.of(table, path, bytes, footer);
    }

    /** Refuses a commit whose base history already appended one of its content ids (re-checked at every retry). */
    private record NotAppendedBefore(List<String> contentIds) implements SnapshotAncestryValidator {
        @Override
        public boolean validate(Iterable<Snapshot> baseSnapshots) {
            for (Snapshot s : baseSnapshots) {
                String ids = s.summary().get(CONTENT_IDS);
                if (ids != null) {
                    for (String id : contentIds) {
                        if (ids.contains(id)) {
                            return false;
                        }
                    }
                }
            }
            return true;
        }

        @Override
        public String errorMessage() {
            return "some of these files were appended before";
        }
    }

    @Override
    public void close() {
        if (catalog instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                log.debug("closing the Iceberg catalog failed", e);
            }
        }
    }
}
