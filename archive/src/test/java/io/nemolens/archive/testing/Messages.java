package io.nemolens.archive.testing;

import io.nemolens.decode.DecodedMessage;
import io.nemolens.decode.MessageIds;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.handlers.MessageInfo;
import io.nemolens.handlers.ReceivedMessage;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.record.RawOtlp;
import java.time.Instant;

/** A body as the consumer hands it to its sinks: decoded, with its message id (the archive's tests and its modules'). */
public final class Messages {

    private Messages() {}

    /** Decodes the body and wraps it as received. */
    public static ReceivedMessage received(OtlpDecoder decoder, Signal signal, byte[] body) {
        return received(decoder.decode(signal, body, null), body);
    }

    /** A decoded body as received: its message id from the body, from exchange {@code x}, not redelivered. */
    public static ReceivedMessage received(DecodedMessage d, byte[] body) {
        MessageInfo info = new MessageInfo(
                MessageIds.of(body),
                d.signal(),
                d.encoding(),
                "x",
                d.signal().routingKey(),
                body.length,
                false,
                RawOtlp.of(d.request()));
        return new ReceivedMessage(info, body, Instant.now(), d.records());
    }
}
