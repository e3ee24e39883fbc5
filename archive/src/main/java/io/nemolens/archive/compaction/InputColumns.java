package io.nemolens.archive.compaction;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;
import org.jspecify.annotations.Nullable;

/**
 * An input file's columns matched by path (their names) to the columns of the schema its rows are written in. An
 * input may be of an older schema: a top-level optional column it does not have is null in its rows. It may not have
 * a column that the schema has not (the archive never drops a column), nor a column of another type.
 */
final class InputColumns {

    /** The columns that say which message and which of its rows a row is: what compaction keeps once. */
    static final String MESSAGE_ID = "_message_id";

    static final String ROW = "_row";

    private final @Nullable ColumnDescriptor[] byOutput;

    private InputColumns(@Nullable ColumnDescriptor[] byOutput) {
        this.byOutput = byOutput;
    }

    /**
     * Matches the columns.
     *
     * @param output the schema the rows are written in
     * @param input the input file's schema
     * @param name the input, as the messages name it
     * @throws IllegalArgumentException when the input has a column the output has not, lacks one that is not a
     *     top-level optional column, or has one of another type (primitive, logical type, repetition and nesting)
     */
    static InputColumns match(MessageType output, MessageType input, String name) {
        Map<List<String>, ColumnDescriptor> inputs = new HashMap<>();
        for (ColumnDescriptor c : input.getColumns()) {
            if (!output.containsPath(c.getPath())) {
                throw new IllegalArgumentException(name + " has the column " + dotted(c)
                        + ", which the table's schema has not (the archive never drops a column)");
            }
            inputs.put(Arrays.asList(c.getPath()), c);
        }
        List<ColumnDescriptor> outputs = output.getColumns();
        @Nullable ColumnDescriptor[] byOutput = new ColumnDescriptor[outputs.size()];
        for (int i = 0; i < byOutput.length; i++) {
            ColumnDescriptor out = outputs.get(i);
            ColumnDescriptor in = inputs.get(Arrays.asList(out.getPath()));
            if (in == null) {
                String top = out.getPath()[0];
                if (input.containsField(top) || !output.getType(top).isRepetition(Type.Repetition.OPTIONAL)) {
                    throw new IllegalArgumentException(name + " has no column " + dotted(out)
                            + ": only a top-level optional column may be missing (then null in the input's rows)");
                }
            } else if (!sameType(in, out)) {
                throw new IllegalArgumentException(name + " has the column " + dotted(in) + " as " + describe(in)
                        + ", the table's schema as " + describe(out));
            }
            byOutput[i] = in;
        }
        return new InputColumns(byOutput);
    }

    /** The input's column that the output's {@code index}-th column is written from, {@code null} if none. */
    @Nullable
    ColumnDescriptor input(int index) {
        return byOutput[index];
    }

    private static boolean sameType(ColumnDescriptor a, ColumnDescriptor b) {
        PrimitiveType x = a.getPrimitiveType();
        PrimitiveType y = b.getPrimitiveType();
        return x.getPrimitiveTypeName() == y.getPrimitiveTypeName()
                && x.getTypeLength() == y.getTypeLength()
                && Objects.equals(x.getLogicalTypeAnnotation(), y.getLogicalTypeAnnotation())
                && a.getMaxRepetitionLevel() == b.getMaxRepetitionLevel()
                && a.getMaxDefinitionLevel() == b.getMaxDefinitionLevel();
    }

    private static String describe(ColumnDescriptor c) {
        PrimitiveType t = c.getPrimitiveType();
        return t.getRepetition().name().toLowerCase(java.util.Locale.ROOT) + " " + t.getPrimitiveTypeName()
                + (t.getLogicalTypeAnnotation() == null ? "" : " (" + t.getLogicalTypeAnnotation() + ")")
                + " at repetition level " + c.getMaxRepetitionLevel() + ", definition level "
                + c.getMaxDefinitionLevel();
    }

    static String dotted(ColumnDescriptor c) {
        return String.join(".", c.getPath());
    }
}
