package io.nemolens.archive.parquet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;

/**
 * The levels {@link RowWriter} writes with come from the schema: the same that parquet-java gives each column
 * (its maximum definition level for a value), and for a list the levels of its later elements; shapes the writer
 * does not write are refused when a table is built, not when a row is.
 */
class ColumnTreeTest {

    private static MessageType schema(String fields) {
        return MessageTypeParser.parseMessageType("message t { " + fields + " }");
    }

    @Test
    void everyLeafTakesTheDefinitionLevelParquetGivesItsColumn() {
        MessageType schema = schema("""
                required int64 a; optional binary b (STRING);
                required group body { required binary type (STRING); optional int64 int_value; }
                required group xs (LIST) { repeated group list { required double element; } }
                required group events (LIST) { repeated group list { required group element {
                  required int64 time; optional binary name (STRING); } } }
                """);
        ColumnTree tree = new ColumnTree(schema);
        ColumnTree.Group root = tree.root();

        assertThat(root.leaves)
                .extracting(l -> l.def)
                .containsExactly(0, 1, 0, 1, 1, 1, 2)
                .isEqualTo(schema.getColumns().stream()
                        .map(c -> c.getMaxDefinitionLevel())
                        .toList());
        assertThat(root.allFields).isEqualTo(0b11111L);

        ColumnTree.Group xs = root.group(3);
        assertThat(xs.elementLeaf().name).isEqualTo("element");
        assertThat(xs.def).isZero(); // an empty list: its column's null at the row's level
        assertThat(xs.elementRep).isEqualTo(1);

        ColumnTree.Group events = root.group(4);
        ColumnTree.Group element = events.elementGroup();
        assertThat(element.def).isEqualTo(1); // a missing name inside an element: null at the element's level
        assertThat(element.leaf(1).name).isEqualTo("name");
        assertThat(events.leaves).containsExactly(element.leaves);
    }

    @Test
    void shapesTheWriterDoesNotWriteAreRefusedWhenTheTableIsBuilt() {
        assertThatThrownBy(() -> new ColumnTree(schema("optional group g { required int64 a; }")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("g is an optional group");
        assertThatThrownBy(() -> new ColumnTree(schema("repeated int64 r;")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("r is repeated outside a LIST");
        assertThatThrownBy(() -> new ColumnTree(
                        schema("required group l (LIST) { repeated group list { optional int64 element; } }")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("l is not a LIST of required elements");
        assertThatThrownBy(() -> new ColumnTree(
                        schema("required group a { required group b { required group c { required group d {"
                                + " required group e { required int64 x; } } } } }")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("a.b.c.d.e nests groups more than 4 deep");
        assertThat(new ColumnTree(schema("required group a { required group b { required group c {"
                                + " required group d { required int64 x; } } } }"))
                        .root()
                        .leaves)
                .hasSize(1);
    }

    @Test
    void everyArchiveTableHasAShapeTheWriterWrites() {
        for (ArchiveTable<?> table : Tables.defaults().all()) {
            assertThat(new ColumnTree(table.schema()).root().leaves)
                    .hasSize(table.schema().getColumns().size());
        }
    }
}
