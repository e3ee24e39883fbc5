package io.nemolens.handlers;

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
 * @param request the whole decoded OTLP request ({@code ExportTraceServiceRequest}, ...), for power users
 */
public record MessageInfo(
        String messageId,
        Signal signal,
        Encoding encoding,
        String exchange,
        String routingKey,
        int bodySize,
        boolean redelivered,
        com.google.protobuf.Message request) {
    public MessageInfo {
        Objects.requireNonNull(messageId, "messageId");
        Objects.requireNonNull(signal, "signal");
        Objects.requireNonNull(encoding, "encoding");
        Objects.requireNonNull(exchange, "exchange");
        Objects.requireNonNull(routingKey, "routingKey");
        Objects.requireNonNull(request, "request");
    }
}
