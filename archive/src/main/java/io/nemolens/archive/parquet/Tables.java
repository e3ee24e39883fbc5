package io.nemolens.archive.parquet;

import io.nemolens.archive.table.DedicatedColumn;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.parquet.schema.MessageType;
import org.jspecify.annotations.Nullable;

/**
 * The archive's five tables as configured: each with its dedicated columns ({@code lens.archive.columns.*}) and
 * its field ids (the ids a new Iceberg table would give it, or the ids of the table its files are committed to).
 * Immutable; the writers of every open file share it.
 */
public final class Tables {

    /** The tables' names, in the order of the record kinds. */
    public static final List<String> NAMES = List.of("spans", "metrics", "logs", "gpu_metrics", "node_metrics");

    private final List<ArchiveTable<?>> all;
    private final Map<String, List<DedicatedColumn>> dedicated;

    private Tables(List<ArchiveTable<?>> all, Map<String, List<DedicatedColumn>> dedicated) {
        this.all = List.copyOf(all);
        this.dedicated = dedicated;
    }

    /** The tables with the default dedicated columns and the ids a new Iceberg table would give them. */
    public static Tables defaults() {
        return of(DedicatedColumn.DEFAULTS);
    }

    /**
     * The tables with these dedicated columns, and the ids a new Iceberg table would give them.
     *
     * @param dedicated per table name, the attributes kept as columns of their own (a table not named has none)
     * @throws IllegalArgumentException for an unknown table name, an attribute named twice, or a column whose name
     *     another column of the table has
     */
    public static Tables of(Map<String, List<DedicatedColumn>> dedicated) {
        Map<String, List<DedicatedColumn>> checked = new LinkedHashMap<>();
        for (String name : NAMES) {
            checked.put(name, List.of());
        }
        for (Map.Entry<String, List<DedicatedColumn>> e : dedicated.entrySet()) {
            if (!checked.containsKey(e.getKey())) {
                throw new IllegalArgumentException("lens.archive.columns." + e.getKey()
                        + ": there is no such table (the tables are " + String.join(", ", NAMES) + ")");
            }
            Set<String> attributes = new HashSet<>();
            for (DedicatedColumn c : e.getValue()) {
                if (!attributes.add(c.attribute())) {
                    throw new IllegalArgumentException(
                            "lens.archive.columns." + e.getKey() + " names " + c.attribute() + " twice");
                }
            }
            checked.put(e.getKey(), List.copyOf(e.getValue()));
        }
        Map<String, MessageType> none = Map.of();
        return new Tables(create(checked, none), Collections.unmodifiableMap(checked));
    }

    /**
     * These tables with the field ids of the tables their files are committed to.
     *
     * @param schemas per table name, its schema with the table's ids (a table not named keeps its ids)
     * @throws IllegalArgumentException when a schema does not have its table's columns
     */
    public Tables withSchemas(Map<String, MessageType> schemas) {
        return new Tables(create(dedicated, schemas), dedicated);
    }

    /** Each table's schema, by name, in the order of the record kinds. */
    public Map<String, MessageType> schemas() {
        Map<String, MessageType> schemas = new LinkedHashMap<>();
        for (ArchiveTable<?> t : all) {
            schemas.put(t.name(), t.schema());
        }
        return schemas;
    }

    List<ArchiveTable<?>> all() {
        return all;
    }

    /** The table of this name. */
    ArchiveTable<?> table(String name) {
        for (ArchiveTable<?> t : all) {
            if (t.name().equals(name)) {
                return t;
            }
        }
        throw new IllegalArgumentException("no table " + name);
    }

    private static List<ArchiveTable<?>> create(
            Map<String, List<DedicatedColumn>> dedicated, Map<String, MessageType> schemas) {
        List<ArchiveTable<?>> tables = new ArrayList<>();
        for (String name : NAMES) {
            ArchiveTable.Shape shape =
                    new ArchiveTable.Shape(dedicated.getOrDefault(name, List.of()), schema(schemas, name));
            tables.add(
                    switch (name) {
                        case "spans" -> new SpanTable(shape);
                        case "metrics" -> new MetricTable(shape);
                        case "logs" -> new LogTable(shape);
                        case "gpu_metrics" -> new GpuTable(shape);
                        case "node_metrics" -> new NodeTable(shape);
                        default -> throw new IllegalStateException("no table " + name);
                    });
        }
        return tables;
    }

    private static @Nullable MessageType schema(Map<String, MessageType> schemas, String name) {
        return schemas.get(name);
    }
}
