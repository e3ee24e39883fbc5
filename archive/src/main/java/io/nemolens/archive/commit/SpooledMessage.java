package io.nemolens.archive.commit;

import io.nemolens.handlers.Encoding;
import io.nemolens.handlers.ReceivedMessage;
import io.nemolens.handlers.Signal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * A message as the spool keeps it: its body as received and what the archive needs to rebuild its rows
 * (signal, encoding, message id, exchange, routing key, receive time). The spool checks each entry's
 * integrity; this is only the layout of the payload:
 *
 * <pre>
 * byte   version (1)
 * byte   signal (ordinal), byte encoding (ordinal), byte flags (bit 0: redelivered)
 * int64  receivedAt, milliseconds since the epoch
 * 16     message id (the 32 hex digits as bytes)
 * int16  exchange length, UTF-8 exchange; int16 routing key length, UTF-8 routing key
 * int32  body length, body
 * </pre>
 */
public record SpooledMessage(
        Signal signal,
        Encoding encoding,
        boolean redelivered,
        long receivedAtMillis,
        String messageId,
        String exchange,
        String routingKey,
        byte[] body) {

    private static final byte VERSION = 1;
    private static final HexFormat HEX = HexFormat.of();

    /**
     * The payload's head: everything before the body, which follows it as received ({@code Spool.append(head,
     * body)}: the body is not copied).
     */
    public static byte[] head(ReceivedMessage m) {
        byte[] exchange = m.info().exchange().getBytes(StandardCharsets.UTF_8);
        byte[] routingKey = m.info().routingKey().getBytes(StandardCharsets.UTF_8);
        byte[] body = m.body();
        ByteBuffer b = ByteBuffer.allocate(4 + 8 + 16 + 2 + exchange.length + 2 + routingKey.length + 4);
        b.put(VERSION)
                .put((byte) m.info().signal().ordinal())
                .put((byte) m.info().encoding().ordinal())
                .put((byte) (m.info().redelivered() ? 1 : 0));
        b.putLong(m.receivedAt().toEpochMilli());
        b.put(HEX.parseHex(m.info().messageId()));
        b.putShort((short) exchange.length).put(exchange);
        b.putShort((short) routingKey.length).put(routingKey);
        b.putInt(body.length);
        return b.array();
    }

    static SpooledMessage decode(byte[] payload) {
        ByteBuffer b = ByteBuffer.wrap(payload);
        byte version = b.get();
        if (version != VERSION) {
            throw new IllegalArgumentException("spool entry of an unknown layout version " + version);
        }
        Signal signal = Signal.values()[b.get()];
        Encoding encoding = Encoding.values()[b.get()];
        boolean redelivered = (b.get() & 1) != 0;
        long receivedAt = b.getLong();
        byte[] id = new byte[16];
        b.get(id);
        String exchange = text(b, Short.toUnsignedInt(b.getShort()));
        String routingKey = text(b, Short.toUnsignedInt(b.getShort()));
        byte[] body = new byte[b.getInt()];
        b.get(body);
        return new SpooledMessage(
                signal, encoding, redelivered, receivedAt, HEX.formatHex(id), exchange, routingKey, body);
    }

    private static String text(ByteBuffer b, int length) {
        String s = new String(b.array(), b.arrayOffset() + b.position(), length, StandardCharsets.UTF_8);
        b.position(b.position() + length);
        return s;
    }
}
