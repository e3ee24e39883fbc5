package io.nemolens.archive.iceberg;

import io.nemolens.archive.table.ArchiveTables;
import io.nemolens.archive.table.TableFile;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotAncestryValidator;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.Transaction;
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
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The archive's tables in an Apache Iceberg catalog: one table per kind of record in a namespace of its own,
 * partitioned as the archive's folders are ({@code date}, then {@code run_id}, both identity), located on the
 * archive's own storage ({@code <root>/<table>}, its metadata under {@code metadata/}), its files the archive's own
 * Parquet files, appended with the metrics of their footers.
 *
 * <p><b>Exactly once, whatever the retention.</b> The archive numbers its files per writer (one per spool) and hands
 * them over in that order ({@link TableFile}). Each table keeps, per writer, the highest number it holds in a table
 * property ({@value #APPENDED}{@code <writer>}), set in the same commit as the append (one transaction): table
 * properties are carried into every new metadata version by every engine, so the watermark survives snapshot expiry,
 * compaction and other engines' rewrites, where a snapshot summary would not. An append takes the files above the
 * watermark; it records the writer in its snapshot's summary too, and is validated, inside every one of Iceberg's
 * commit retries, against the snapshots committed since it read the watermark ({@link SnapshotAncestryValidator}):
 * another append of the same writer meanwhile (an earlier attempt whose outcome was unknown, or table maintenance
 * adopting the writer's files) makes it read the watermark again. Its cost does not grow with the table's history.
 * Files written before the archive numbered them (found at start after an upgrade) are still checked by their content
 * ids ({@value #CONTENT_IDS} in snapshot summaries) and by their location among the live files.
 *
 * <p>Iceberg's work (planning, manifests, deletes) runs on this object's own threads, closed last with it, never on
 * Iceberg's shared worker pool, which its own JVM shutdown hook ends while the archive still appends its last files.
 *
 * <p>The catalog is connected to at the first {@link #prepare}, not when these tables are made: a catalog that does
 * not answer at start fails that call with an {@link IOException}, which the archive asks again with backoff until its
 * start's deadline, as it asks every remote part. Every catalog failure is an {@link IOException}: the archive tries
 * again with backoff. Thread-safe.
 */
public final class IcebergTables implements ArchiveTables {

    private static final Logger log = LoggerFactory.getLogger(IcebergTables.class);

    /**
     * The snapshot summary key of the content ids of the files an append of files written before the archive numbered
     * them added, separated by spaces.
     */
    public static final String CONTENT_IDS = "lens.content-ids";

    /**
     * The prefix of the table property (and snapshot summary key) that holds, per writer, the highest number of its
     * files the table holds: {@code lens.appended.<writer>}.
     */
    public static final String APPENDED = "lens.appended.";

    /** How often an append whose validation found some of its files appended meanwhile is tried with the rest. */
    private static final int VALIDATION_ROUNDS = 10;

    /** Connects to the catalog; called at the first {@link #prepare}, again after a connection that failed. */
    @FunctionalInterface
    public interface CatalogConnection {
        /** A catalog, initialised; a catalog that does not answer throws. */
        Catalog connect();
    }

    private final LazyCatalog catalog;
    private final Namespace namespace;
    private final String root;
    private final String location;
    private final Duration commitInterval;
    private final Map<String, String> tableProperties;
    private final Map<String, Table> tables = new ConcurrentHashMap<>();
    /** The archive's schema of each table as prepared, with the table's ids: what its files carry. */
    private final Map<String, MessageType> prepared = new ConcurrentHashMap<>();
    /** Iceberg's work, on threads this object owns (see the class comment). */
    private final ExecutorService workers;

    /**
     * @param connection connects to the catalog at the first {@link #prepare} (the catalog is closed with these tables
     *     when it is {@link AutoCloseable})
     * @param namespace the tables' namespace, made if missing
     * @param root where the archive's files are: its folder's absolute path, or {@code s3://bucket/prefix}; a table's
     *     location is {@code <root>/<table>}
     * @param location where the tables are, for status and logs (never with a password)
     * @param commitInterval how long files gather before they are appended
     * @param tableProperties properties a new table is made with, beside the archive's own
     */
    public IcebergTables(
            CatalogConnection connection,
            Namespace namespace,
            String root,
            String location,
            Duration commitInterval,
            Map<String, String> tableProperties) {
        this.catalog = new LazyCatalog(connection, location);
        this.namespace = namespace;
        this.root = root.endsWith("/") ? root.substring(0, root.length() - 1) : root;
        this.location = location;
        this.commitInterval = commitInterval;
        this.tableProperties = Map.copyOf(tableProperties);
        AtomicInteger count = new AtomicInteger();
        this.workers = Executors.newFixedThreadPool(WORKERS, task -> {
            Thread t = new Thread(task, "lens-iceberg-" + count.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** How many threads do Iceberg's work: planning and manifests are small for the archive's appends. */
    private static final int WORKERS =
            Math.max(2, Math.min(4, Runtime.getRuntime().availableProcessors()));

    /**
     * The threads Iceberg's work runs on (planning, manifests, deletes), for table maintenance too: open until these
     * tables close, after the archive and maintenance stopped.
     */
    public ExecutorService executor() {
        return workers;
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

    /** Where the archive's files are: a file's name in its store is relative to it ({@code <root>/<name>}). */
    public String root() {
        return root;
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
        Catalog connected = catalog.get();
        if (connected instanceof SupportsNamespaces namespaces && !namespaces.namespaceExists(namespace)) {
            try {
                namespaces.createNamespace(namespace);
            } catch (AlreadyExistsException e) {
                // another instance made it meanwhile
            }
        }
        try {
            return connected.loadTable(id);
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
                Table created = connected
                        .buildTable(id, schema)
                        .withPartitionSpec(spec(schema))
                        .withLocation(root + "/" + table)
                        .withProperties(properties)
                        .create();
                log.info("created the Iceberg table {} at {}", id, created.location());
                return created;
            } catch (AlreadyExistsException raced) {
                return connected.loadTable(id); // another instance made it meanwhile
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

    /** The files of one table: numbered ones per writer, in their order; ones written before numbers by content. */
    private void append(String name, List<TableFile> files) throws IOException {
        List<TableFile> unnumbered = new ArrayList<>();
        Map<String, List<TableFile>> byWriter = new LinkedHashMap<>();
        for (TableFile f : files) {
            String writer = f.writer();
            if (writer == null) {
                unnumbered.add(f);
            } else {
                byWriter.computeIfAbsent(writer, w -> new ArrayList<>()).add(f);
            }
        }
        if (!unnumbered.isEmpty()) {
            appendByContent(name, unnumbered);
        }
        for (Map.Entry<String, List<TableFile>> e : byWriter.entrySet()) {
            List<TableFile> ordered = new ArrayList<>(e.getValue());
            ordered.sort(Comparator.comparingLong(TableFile::number));
            appendNumbered(name, e.getKey(), ordered, false);
        }
    }

    /**
     * One commit (one transaction): the files of one writer above the table's watermark for it, and the watermark
     * raised to the last of them. Table maintenance adopts the files of a writer that is gone the same way.
     *
     * @param files the writer's files, in the order of their numbers
     * @param adopted whether table maintenance adopts them (said in the snapshot's summary)
     * @return how many files the commit appended (0 when the table held them all)
     * @throws IOException when the commit kept finding the writer's watermark moved meanwhile
     */
    public int appendNumbered(String name, String writer, List<TableFile> files, boolean adopted) throws IOException {
        String key = APPENDED + writer;
        for (int round = 0; round < VALIDATION_ROUNDS; round++) {
            Table table = current(name);
            Snapshot base = table.currentSnapshot();
            long held = watermark(table, writer);
            List<TableFile> todo = new ArrayList<>();
            for (TableFile f : files) {
                if (f.number() > held) {
                    todo.add(f);
                }
            }
            if (todo.isEmpty()) {
                return 0;
            }
            String top = Long.toString(todo.get(todo.size() - 1).number());
            Transaction transaction = table.newTransaction();
            AppendFiles append =
                    transaction.newAppend().scanManifestsWith(workers).writeManifestsWith(workers, WORKERS);
            for (TableFile f : todo) {
                append.appendFile(dataFile(table, f));
            }
            append.set(key, top);
            if (adopted) {
                append.set(ADOPTED, Integer.toString(todo.size()));
            }
            append.validateWith(new NoneAppendedSince(base == null ? null : base.snapshotId(), key));
            try {
                append.commit();
                transaction.updateProperties().set(key, top).commit();
                transaction.commitTransaction();
                log.debug(
                        "appended {} files of writer {} to {} (up to {})", todo.size(), writer, identifier(name), top);
                return todo.size();
            } catch (ValidationException e) {
                // the writer's files were appended meanwhile (an attempt whose outcome was unknown, or an adoption):
                // the watermark again
                table.refresh();
            }
        }
        throw new IOException(
                "appending to " + identifier(name) + " kept finding writer " + writer + "'s files appended meanwhile");
    }

    /** The snapshot summary key that says how many files an adoption appended. */
    public static final String ADOPTED = "lens.adopted-files";

    /** The highest number of the writer's files the table holds, or -1 (the table property). */
    public static long watermark(Table table, String writer) throws IOException {
        String value = table.properties().get(APPENDED + writer);
        if (value == null) {
            return -1;
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IOException("the Iceberg table " + table.name() + " says " + APPENDED + writer + "=" + value
                    + ", which is not a file number: set it right or remove it by hand");
        }
    }

    @Override
    public long appended(String name, String writer) throws IOException {
        try {
            return watermark(current(name), writer);
        } catch (IllegalStateException | IOException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new IOException("reading the Iceberg table " + identifier(name) + " failed: " + e, e);
        }
    }

    /** One commit: the files written before the archive numbered them that the table does not hold yet. */
    private void appendByContent(String name, List<TableFile> files) throws IOException {
        Table table = current(name);
        List<TableFile> todo = new ArrayList<>(files);
        for (int round = 0; round < VALIDATION_ROUNDS; round++) {
            todo.removeIf(heldBy(table, todo)::contains);
            if (todo.isEmpty()) {
                return;
            }
            List<String> ids = todo.stream().map(TableFile::contentId).toList();
            AppendFiles append = table.newAppend().scanManifestsWith(workers).writeManifestsWith(workers, WORKERS);
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
     * The files among these (written before the archive numbered its files) that the table holds already: their
     * content ids are in a snapshot of its history, or they are among its live files by location (their snapshot
     * may have expired).
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
                table.newScan().planWith(workers).filter(inPartition).planFiles()) {
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

    /**
     * Refuses a commit when a snapshot committed since the watermark was read (since {@code base}) appended files of
     * the same writer: the watermark must be read again. When {@code base} is no longer in the history (expired or
     * rolled back meanwhile), it refuses too, to the same end. Re-checked at every commit retry; it walks only the
     * snapshots since {@code base}.
     */
    private record NoneAppendedSince(@Nullable Long base, String key) implements SnapshotAncestryValidator {
        @Override
        public boolean validate(Iterable<Snapshot> baseSnapshots) {
            for (Snapshot s : baseSnapshots) {
                if (base != null && s.snapshotId() == base) {
                    return true;
                }
                Map<String, String> summary = s.summary();
                if (summary != null && summary.containsKey(key)) {
                    return false;
                }
            }
            return base == null;
        }

        @Override
        public String errorMessage() {
            return "the writer's files were appended meanwhile (" + key + ")";
        }
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
        workers.shutdown();
        try {
            if (!workers.awaitTermination(30, TimeUnit.SECONDS)) {
                workers.shutdownNow();
            }
        } catch (InterruptedException e) {
            workers.shutdownNow();
            Thread.currentThread().interrupt();
        }
        catalog.close();
    }
}
