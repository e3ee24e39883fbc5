package io.nemolens.archive.iceberg;

import io.nemolens.decode.DecodedMessage;
import io.nemolens.decode.MessageIds;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.handlers.MessageInfo;
import io.nemolens.handlers.ReceivedMessage;
import io.nemolens.handlers.Signal;
import java.time.Instant;

/** A body as the consumer hands it to the archive: decoded, with its message id. */
public final class Messages {

    private Messages() {}

    public static ReceivedMessage received(OtlpDecoder decoder, Signal signal, byte[] body) {
        DecodedMessage d = decoder.decode(signal, body, null);
        MessageInfo info = new MessageInfo(
                MessageIds.of(body),
                d.signal(),
                d.encoding(),
                "x",
                d.signal().routingKey(),
                body.length,
                false,
                d.request());
        return new ReceivedMessage(info, body, Instant.now(), d.records());
    }
}
