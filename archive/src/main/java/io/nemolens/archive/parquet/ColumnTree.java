package io.nemolens.archive.parquet;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ColumnWriteStore;
import org.apache.parquet.column.ColumnWriter;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.LogicalTypeAnnotation;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.Type;
import org.jspecify.annotations.Nullable;

/**
 * A table's schema as {@link RowWriter} walks it: every group with its fields by index, every leaf with its
 * column writer and the definition level its values take, every list with the repetition level of its later
 * elements. Parquet's own {@code MessageColumnIO} record consumer computes the same levels for every value of
 * every row (measured: most of the archive's row writing that is neither rendering attributes nor pages); here
 * they come from the schema once per file, and the writer of each column once per row group.
 *
 * <p>Covers the shapes the archive's tables use: required and optional primitive fields, required groups
 * (a log body), and required three-level {@code LIST}s ({@code repeated group list { required element }})
 * whose element is a primitive or a group of primitives. Not thread-safe (bound per row group).
 */
final class ColumnTree {

    /** A field of a group: a leaf (one column) or a group. */
    abstract static sealed class Node permits Leaf, Group {
        /** The field's name (for checks: the writer's callers name what they write). */
        final String name;
        /** Every leaf at or below this node, in schema order. */
        final Leaf[] leaves;

        Node(String name, Leaf[] leaves) {
            this.name = name;
            this.leaves = leaves;
        }
    }

    /** A primitive field: one column. */
    static final class Leaf extends Node {
        final ColumnDescriptor descriptor;
        /** The definition level of a value of this column (its maximum). */
        final int def;

        @SuppressWarnings("NullAway.Init") // bound (bind) before the first row of each row group
        ColumnWriter writer;

        Leaf(ColumnDescriptor descriptor) {
            super(descriptor.getPath()[descriptor.getPath().length - 1], new Leaf[1]);
            this.descriptor = descriptor;
            this.def = descriptor.getMaxDefinitionLevel();
            leaves[0] = this;
        }
    }

    /** A required group of fields: the message, a struct, a list's element, or a {@code LIST} itself. */
    static final class Group extends Node {
        final Node[] fields;
        /** The definition level while this group is defined (its fields' nulls take it). */
        final int def;
        /** For a {@code LIST}: its element (a leaf or a group); else {@code null}. */
        final @Nullable Node element;
        /** For a {@code LIST}: the repetition level of every element after the first. */
        final int elementRep;
        /** One bit per field: what a complete row (or element) of this group has written. */
        final long allFields;

        Group(String name, Node[] fields, Leaf[] leaves, int def, @Nullable Node element, int elementRep) {
            super(name, leaves);
            this.fields = fields;
            this.def = def;
            this.element = element;
            this.elementRep = elementRep;
            this.allFields = fields.length == 64 ? -1L : (1L << fields.length) - 1;
        }

        /** A {@code LIST}'s element, a primitive. */
        Leaf elementLeaf() {
            return (Leaf) Objects.requireNonNull(element, name);
        }

        /** A {@code LIST}'s element, a group. */
        Group elementGroup() {
            return (Group) Objects.requireNonNull(element, name);
        }

        Leaf leaf(int index) {
            return (Leaf) fields[index];
        }

        Group group(int index) {
            return (Group) fields[index];
        }
    }

    /** How deep groups (structs, list elements) may nest inside a row: what {@link RowWriter} keeps of the enclosing ones. */
    static final int MAX_DEPTH = 4;

    private final MessageType schema;
    private final Group root;

    /**
     * @throws IllegalArgumentException for a shape the archive's writer does not write (an optional group, a
     *     repeated field outside a {@code LIST}, a group of more than 64 fields, groups nested more than
     *     {@link #MAX_DEPTH} deep)
     */
    ColumnTree(MessageType schema) {
        this.schema = schema;
        this.root = group(schema, new ArrayList<>(), 0, 0, 0);
    }

    /** The message: the top-level fields. */
    Group root() {
        return root;
    }

    /** Takes the column writers of the row group that {@code store} writes. */
    void bind(ColumnWriteStore store) {
        for (Leaf leaf : root.leaves) {
            leaf.writer = store.getColumnWriter(leaf.descriptor);
        }
    }

    private Group group(GroupType type, List<String> path, int def, int rep, int depth) {
        if (depth > MAX_DEPTH) {
            throw new IllegalArgumentException(
                    String.join(".", path) + " nests groups more than " + MAX_DEPTH + " deep");
        }
        List<Type> types = type.getFields();
        if (types.size() > 64) {
            throw new IllegalArgumentException(type.getName() + " has more than 64 fields");
        }
        Node[] fields = new Node[types.size()];
        List<Leaf> below = new ArrayList<>();
        for (int i = 0; i < fields.length; i++) {
            Type field = types.get(i);
            path.add(field.getName());
            fields[i] = node(field, path, def, rep, depth);
            path.remove(path.size() - 1);
            below.addAll(List.of(fields[i].leaves));
        }
        return new Group(type.getName(), fields, below.toArray(Leaf[]::new), def, null, 0);
    }

    private Node node(Type field, List<String> path, int parentDef, int rep, int depth) {
        if (field.isRepetition(Type.Repetition.REPEATED)) {
            throw new IllegalArgumentException(String.join(".", path) + " is repeated outside a LIST");
        }
        if (field.isPrimitive()) {
            return new Leaf(schema.getColumnDescription(path.toArray(String[]::new)));
        }
        if (field.isRepetition(Type.Repetition.OPTIONAL)) {
            throw new IllegalArgumentException(String.join(".", path) + " is an optional group");
        }
        GroupType group = field.asGroupType();
        if (!(group.getLogicalTypeAnnotation() instanceof LogicalTypeAnnotation.ListLogicalTypeAnnotation)) {
            return group(group, path, parentDef, rep, depth + 1);
        }
        // required group name (LIST) { repeated group list { required <element> } }
        Type list = group.getType(0);
        if (group.getFieldCount() != 1
                || !list.isRepetition(Type.Repetition.REPEATED)
                || list.isPrimitive()
                || list.asGroupType().getFieldCount() != 1
                || !list.asGroupType().getType(0).isRepetition(Type.Repetition.REQUIRED)) {
            throw new IllegalArgumentException(String.join(".", path) + " is not a LIST of required elements");
        }
        Type element = list.asGroupType().getType(0);
        int elementDef = parentDef + 1;
        int elementRep = rep + 1;
        path.add(list.getName());
        path.add(element.getName());
        Node elementNode = element.isPrimitive()
                ? new Leaf(schema.getColumnDescription(path.toArray(String[]::new)))
                : group(element.asGroupType(), path, elementDef, elementRep, depth + 1);
        path.remove(path.size() - 1);
        path.remove(path.size() - 1);
        return new Group(group.getName(), new Node[0], elementNode.leaves, parentDef, elementNode, elementRep);
    }
}
