package io.nemolens.handlers;

import io.nemolens.handlers.record.RawOtlp;
import java.util.Objects;

/**
 * Where a batch came from: the AMQP message that carried it.
 *
 * @param messageId a hash of the message body (hex): a redelivered or replayed message keeps its id
 * @param signal the signal, from the routing key
 * @param encoding how the body was encoded
 * @param exchange the exchange the message was published to
 * @param routingKey the routing key it was published with
 * @param bodySize the body size in bytes
 * @param redelivered whether the broker has delivered it before
 * @param source the whole OTLP request ({@code ExportTraceServiceRequest}, ...), for power users: parsed when
 *     first asked for ({@link #request()}); a test that has the request parsed passes {@code RawOtlp.of(request)}
 */
public record MessageInfo(
        String messageId,
        Signal signal,
        Encoding encoding,
        String exchange,
        String routingKey,
        int bodySize,
        boolean redelivered,
        RawOtlp<com.google.protobuf.Message> source) {
    public MessageInfo {
        Objects.requireNonNull(messageId, "messageId");
        Objects.requireNonNull(signal, "signal");
        Objects.requireNonNull(encoding, "encoding");
        Objects.requireNonNull(exchange, "exchange");
        Objects.requireNonNull(routingKey, "routingKey");
        Objects.requireNonNull(source, "source");
    }

    /**
     * The whole OTLP request ({@code ExportTraceServiceRequest}, {@code ExportMetricsServiceRequest} or
     * {@code ExportLogsServiceRequest}), for power users; parsed from the body on the first call.
     */
    public com.google.protobuf.Message request() {
        return source.get();
    }
}
