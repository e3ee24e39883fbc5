package io.nemolens.archive.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.column.page.DictionaryPage;
import org.apache.parquet.column.values.ValuesWriter;
import org.apache.parquet.io.api.Binary;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;

/** The archive's dictionary writer writes exactly the bytes Parquet's own does, whatever the values' instances. */
class RepeatedValuesWriterFactoryTest {

    private static final MessageType SCHEMA =
            MessageTypeParser.parseMessageType("message m { required binary s (STRING); required int64 n; }");

    private static ParquetProperties properties(boolean ours, int dictionaryBytes) {
        ParquetProperties.Builder b = ParquetProperties.builder().withDictionaryPageSize(dictionaryBytes);
        if (ours) {
            b.withValuesWriterFactory(new RepeatedValuesWriterFactory());
        }
        return b.build();
    }

    private static Binary constant(String s) {
        return Binary.fromConstantByteArray(s.getBytes(StandardCharsets.UTF_8));
    }

    /** Pages and dictionary pages of both writers, after each step of the same writes. */
    private static List<byte[]> written(ValuesWriter w, List<Binary> values, int pageEvery) throws IOException {
        List<byte[]> out = new ArrayList<>();
        int n = 0;
        for (Binary v : values) {
            w.writeBytes(v);
            if (++n % pageEvery == 0) {
                out.add(w.getBytes().toByteArray());
                out.add(w.getEncoding().name().getBytes(StandardCharsets.UTF_8));
                w.reset();
            }
        }
        out.add(w.getBytes().toByteArray());
        DictionaryPage dictionary = w.toDictPageAndClose();
        if (dictionary != null) {
            out.add(dictionary.getBytes().toByteArray());
        }
        w.resetDictionary();
        return out;
    }

    private static List<Binary> values() {
        Binary resource = constant("{\"service.name\":{\"stringValue\":\"megatron\"},\"nemo.run.id\":\"run-7\"}");
        Binary scope = constant("{\"otel.scope\":\"nemo\"}");
        byte[] shared = new byte[8];
        List<Binary> values = new ArrayList<>();
        for (int message = 0; message < 50; message++) {
            Binary perMessage = constant("run-" + (message % 4));
            for (int row = 0; row < 40; row++) {
                values.add(row % 3 == 0 ? resource : scope);
                values.add(perMessage);
                values.add(perMessage);
                values.add(constant("name-" + (row % 5))); // equal bytes, new instances
                // one buffer reused for different values: never recognised by identity
                byte[] bytes = ("v" + (row % 7) + "-abcde").getBytes(StandardCharsets.UTF_8);
                System.arraycopy(bytes, 0, shared, 0, 8);
                values.add(Binary.fromReusedByteArray(shared));
                values.add(Binary.fromReusedByteArray(shared));
            }
        }
        return values;
    }

    @Test
    void dictionaryPagesAndDataPagesAreThoseOfParquetsWriter() throws IOException {
        ColumnDescriptor column = SCHEMA.getColumns().get(0);
        for (int pageEvery : new int[] {7, 1_000, 100_000}) {
            ValuesWriter theirs = properties(false, 1 << 20).newValuesWriter(column);
            ValuesWriter ours = properties(true, 1 << 20).newValuesWriter(column);
            assertThat(written(ours, values(), pageEvery))
                    .as("every %d values", pageEvery)
                    .containsExactlyElementsOf(written(theirs, values(), pageEvery));
        }
    }

    @Test
    void aDictionaryThatGrowsTooBigFallsBackToPlainValuesAsParquetsDoes() throws IOException {
        ColumnDescriptor column = SCHEMA.getColumns().get(0);
        List<Binary> values = new ArrayList<>();
        Binary repeated = constant("the same value, many times over");
        for (int i = 0; i < 5_000; i++) {
            values.add(repeated);
            values.add(constant("unique-" + i));
        }
        ValuesWriter theirs = properties(false, 4_096).newValuesWriter(column);
        ValuesWriter ours = properties(true, 4_096).newValuesWriter(column);
        List<byte[]> expected = written(theirs, values, 3_000);
        assertThat(written(ours, values, 3_000)).containsExactlyElementsOf(expected);
    }

    @Test
    void otherColumnsGetParquetsOwnWriters() {
        ColumnDescriptor longs = SCHEMA.getColumns().get(1);
        assertThat(properties(true, 1 << 20).newValuesWriter(longs).getClass())
                .isEqualTo(properties(false, 1 << 20).newValuesWriter(longs).getClass());
    }
}
