package io.nemolens.archive;

import io.nemolens.handlers.record.TelemetryRecord;
import java.util.Map;
import org.apache.parquet.conf.ParquetConfiguration;
import org.apache.parquet.hadoop.api.WriteSupport;
import org.apache.parquet.io.api.RecordConsumer;

/**
 * Writes records straight into Parquet's record consumer (no Avro objects in between). The message id
 * and row index of the next row are set before each {@code write}.
 */
final class RowWriteSupport<T extends TelemetryRecord> extends WriteSupport<T> {

    private final ArchiveTable<T> table;
    private RowWriter writer;
    private String messageId = "";
    private int row;

    RowWriteSupport(ArchiveTable<T> table) {
        this.table = table;
    }

    void next(String messageIdValue, int rowIndex) {
        this.messageId = messageIdValue;
        this.row = rowIndex;
    }

    @Override
    @SuppressWarnings("deprecation") // abstract in WriteSupport: must be implemented; the writer calls the other init
    public WriteContext init(org.apache.hadoop.conf.Configuration configuration) {
        return init((ParquetConfiguration) null);
    }

    @Override
    public WriteContext init(ParquetConfiguration configuration) {
        return new WriteContext(
                table.schema(), Map.of("nemo_lens.table", table.name(), "nemo_lens.schema_version", "1"));
    }

    @Override
    public void prepareForWrite(RecordConsumer recordConsumer) {
        writer = new RowWriter(recordConsumer);
    }

    @Override
    public void write(T record) {
        table.write(writer, record, messageId, row);
    }

    @Override
    public String getName() {
        return "nemo-lens-archive";
    }
}
