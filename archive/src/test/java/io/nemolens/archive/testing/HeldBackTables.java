package io.nemolens.archive.testing;

import io.nemolens.archive.table.ArchiveTables;
import io.nemolens.archive.table.TableFile;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.parquet.schema.MessageType;

/**
 * Real tables (a catalog's) that the archive prepares and asks as usual, but whose appends are held back: refused, as
 * a catalog that is away refuses them (the files stay in the folder, out of the tables, their spool entries held), or
 * kept here and said done (the files are in the folder, numbered, in no table yet; a test appends them itself, all at
 * once or racing).
 */
public final class HeldBackTables implements ArchiveTables {

    /** What becomes of the archive's appends. */
    public enum Appends {
        /** Each fails, as while the catalog is away. */
        REFUSED,
        /** Each is kept here ({@link #kept()}) and said done. */
        KEPT
    }

    private final ArchiveTables tables;
    private final Appends appends;
    private final List<TableFile> kept = new CopyOnWriteArrayList<>();

    public HeldBackTables(ArchiveTables tables, Appends appends) {
        this.tables = tables;
        this.appends = appends;
    }

    @Override
    public String location() {
        return tables.location();
    }

    @Override
    public MessageType prepare(String table, MessageType columns) throws IOException {
        return tables.prepare(table, columns);
    }

    @Override
    public long appended(String table, String writer) throws IOException {
        return tables.appended(table, writer);
    }

    @Override
    public void append(List<TableFile> files) throws IOException {
        if (appends == Appends.REFUSED) {
            throw new IOException("the catalog is away");
        }
        kept.addAll(files);
    }

    @Override
    public Duration commitInterval() {
        return Duration.ofMillis(50);
    }

    /** The files kept so far, of one table, in their writer's order. */
    public List<TableFile> kept(String table) {
        return kept.stream()
                .filter(f -> f.table().equals(table))
                .sorted((a, b) -> Long.compare(a.number(), b.number()))
                .toList();
    }

    /** The real tables are the test's to close. */
    @Override
    public void close() {}
}
