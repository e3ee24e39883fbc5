package io.nemolens.archive.parquet;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;

/**
 * The Iceberg field ids of an archive schema. Without a catalog the archive gives its columns the ids a new Iceberg
 * table would give them (Iceberg numbers a struct's fields first, in order, then the fields inside each of them in
 * turn, a list's element before what is inside it), so that its files carry ids whether or not they are committed
 * to a table; with one, the table's own ids, which {@link io.nemolens.archive.table.ArchiveTables#prepare} returns.
 */
final class FieldIds {

    private FieldIds() {}

    /** The schema with the ids a new Iceberg table would give its fields (any ids it has are replaced). */
    static MessageType assign(MessageType schema) {
        int[] next = {0};
        return new MessageType(schema.getName(), struct(schema.getFields(), next));
    }

    private static List<Type> struct(List<Type> fields, int[] next) {
        int[] ids = new int[fields.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = ++next[0];
        }
        List<Type> numbered = new ArrayList<>(fields.size());
        for (int i = 0; i < ids.length; i++) {
            numbered.add(inside(fields.get(i), next).withId(ids[i]));
        }
        return numbered;
    }

    /** The type with the fields inside it numbered (a primitive as it is). */
    private static Type inside(Type type, int[] next) {
        if (type.isPrimitive()) {
            return type;
        }
        GroupType group = type.asGroupType();
        if (group.getLogicalTypeAnnotation() instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation) {
            // LIST { repeated group list { <element> } }: the element has the id, the repeated group none
            GroupType repeated = group.getType(0).asGroupType();
            int elementId = ++next[0];
            Type element = inside(repeated.getType(0), next).withId(elementId);
            return group.withNewFields(repeated.withNewFields(element));
        }
        return group.withNewFields(struct(group.getFields(), next));
    }

    /** Whether two schemas have the same columns (names, types, repetition, nesting), whatever their ids. */
    static boolean sameColumns(MessageType a, MessageType b) {
        return withoutIds(a).equals(withoutIds(b));
    }

    /** The schema's text without its ids (Parquet writes an id as {@code = <id>} after the field's name and type). */
    private static String withoutIds(MessageType schema) {
        return ID.matcher(schema.toString()).replaceAll("");
    }

    private static final Pattern ID = Pattern.compile(" = \\d+");
}
