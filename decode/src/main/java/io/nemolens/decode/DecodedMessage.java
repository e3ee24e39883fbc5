package io.nemolens.decode;

import com.google.protobuf.Message;
import io.nemolens.handlers.Encoding;
import io.nemolens.handlers.Records;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.record.RawOtlp;
import java.util.Objects;

/**
 * One decoded message: the OTLP request and its records. Only the kinds of the message's signal can be
 * non-empty; a metrics message's points are split into generic points, GPU samples and node samples
 * (see {@link InfraClassifier}), so each point is in exactly one list, or none when it is a skipped
 * staleness marker of a GPU or node metric.
 *
 * @param signal the signal the message was decoded as
 * @param encoding the encoding the body was read in
 * @param source the whole request: an {@code ExportTraceServiceRequest}, {@code ExportMetricsServiceRequest} or
 *     {@code ExportLogsServiceRequest}, parsed when first asked for where the records were read straight from the
 *     body ({@link #request()})
 * @param records the records, by kind, in request order
 * @param staleSkipped how many staleness markers of GPU and node metrics were skipped
 */
public record DecodedMessage(
        Signal signal, Encoding encoding, RawOtlp<Message> source, Records records, int staleSkipped) {

    public DecodedMessage {
        Objects.requireNonNull(signal, "signal");
        Objects.requireNonNull(encoding, "encoding");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(records, "records");
    }

    /** The whole request; parsed from the body on the first call when the records were read straight from it. */
    public Message request() {
        return source.get();
    }

    /** How many records the message holds. */
    public int recordCount() {
        return records.count();
    }
}
