package io.nemolens.archive.iceberg;

import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.UpdateSchema;
import org.apache.iceberg.parquet.ParquetSchemaUtil;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.jspecify.annotations.Nullable;

/**
 * The archive's Parquet schema of a table and the Iceberg table's schema: the one made from the other, a table grown
 * by the columns the archive has and it lacks (added as optional: the rows of older files read as null), and the
 * archive's schema given the table's field ids. A column is never dropped, renamed or given another type: a table
 * that holds one of the archive's columns under another type is refused.
 */
final class TableSchemas {

    private TableSchemas() {}

    /** The Iceberg schema of the archive's Parquet schema, with its field ids. */
    static Schema icebergOf(MessageType columns) {
        return ParquetSchemaUtil.convert(columns);
    }

    /**
     * Adds to the table the columns of the archive's schema it lacks (nested ones too), each optional.
     *
     * @return the columns added, by their dotted names (none when the table has them all)
     * @throws IllegalStateException when the table holds one of the columns under another type
     */
    static List<String> grow(Table table, MessageType columns) {
        Schema wanted = icebergOf(columns);
        List<Addition> additions = new ArrayList<>();
        compare(wanted.asStruct(), table.schema().asStruct(), null, table.name(), additions);
        if (additions.isEmpty()) {
            return List.of();
        }
        UpdateSchema update = table.updateSchema();
        List<String> added = new ArrayList<>();
        for (Addition a : additions) {
            if (a.parent() == null) {
                update.addColumn(a.name(), a.type());
            } else {
                update.addColumn(a.parent(), a.name(), a.type());
            }
            added.add(a.parent() == null ? a.name() : a.parent() + "." + a.name());
        }
        update.commit();
        table.refresh();
        return added;
    }

    private record Addition(@Nullable String parent, String name, Type type) {}

    private static void compare(
            Types.StructType wanted,
            Types.StructType has,
            @Nullable String parent,
            String table,
            List<Addition> additions) {
        for (Types.NestedField field : wanted.fields()) {
            Types.NestedField existing = has.field(field.name());
            String path = parent == null ? field.name() : parent + "." + field.name();
            if (existing == null) {
                additions.add(new Addition(parent, field.name(), field.type()));
                continue;
            }
            Type want = field.type();
            Type got = existing.type();
            if (want.isPrimitiveType() || got.isPrimitiveType()) {
                if (!want.equals(got)) {
                    throw new IllegalStateException("the Iceberg table " + table + " holds the column " + path
                            + " as " + got + ", the archive writes it as " + want
                            + ": a column is never given another type (rename or drop the table's column, or the"
                            + " archive's dedicated column)");
                }
            } else if (want.isStructType() && got.isStructType()) {
                compare(want.asStructType(), got.asStructType(), path, table, additions);
            } else if (want.isListType() && got.isListType()) {
                Type wantElement = want.asListType().elementType();
                Type gotElement = got.asListType().elementType();
                if (wantElement.isStructType() && gotElement.isStructType()) {
                    compare(wantElement.asStructType(), gotElement.asStructType(), path, table, additions);
                } else if (!wantElement.equals(gotElement)) {
                    throw new IllegalStateException("the Iceberg table " + table + " holds the list " + path + " of "
                            + gotElement + ", the archive writes " + wantElement);
                }
            } else {
                throw new IllegalStateException("the Iceberg table " + table + " holds the column " + path + " as "
                        + got + ", the archive writes it as " + want);
            }
        }
    }

    /** The archive's schema with the field ids the table gives its columns (the table has them all). */
    static MessageType withIds(MessageType columns, Schema table) {
        return new MessageType(columns.getName(), fields(columns.getFields(), table.asStruct()));
    }

    private static List<org.apache.parquet.schema.Type> fields(
            List<org.apache.parquet.schema.Type> fields, Types.StructType struct) {
        List<org.apache.parquet.schema.Type> numbered = new ArrayList<>(fields.size());
        for (org.apache.parquet.schema.Type f : fields) {
            Types.NestedField field = struct.field(f.getName());
            if (field == null) {
                throw new IllegalStateException("the table has no column " + f.getName());
            }
            numbered.add(inside(f, field.type()).withId(field.fieldId()));
        }
        return numbered;
    }

    private static org.apache.parquet.schema.Type inside(org.apache.parquet.schema.Type f, Type type) {
        if (f.isPrimitive()) {
            return f;
        }
        GroupType group = f.asGroupType();
        if (group.getLogicalTypeAnnotation() instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation) {
            Types.ListType list = type.asListType();
            GroupType repeated = group.getType(0).asGroupType();
            org.apache.parquet.schema.Type element =
                    inside(repeated.getType(0), list.elementType()).withId(list.elementId());
            return group.withNewFields(repeated.withNewFields(element));
        }
        return group.withNewFields(fields(group.getFields(), type.asStructType()));
    }
}
