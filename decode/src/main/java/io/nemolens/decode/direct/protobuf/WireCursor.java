package io.nemolens.decode.direct.protobuf;

import com.google.protobuf.UnsafeByteOperations;
import io.nemolens.decode.records.NotCommon;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The protobuf wire format over one body, for the direct readers: where the reader is ({@link #pos}), and the tags,
 * varints, fixed-width numbers, lengths and strings there. What protobuf-java would refuse, or read otherwise than
 * the common case, throws {@link NotCommon}: a truncated or overlong value, field 0, a group, invalid UTF-8, a field
 * this level declares with another wire type. Not thread-safe; one instance reads one body.
 */
final class WireCursor {

    // wire types
    static final int VARINT = 0;
    static final int I64 = 1;
    static final int LEN = 2;
    static final int I32 = 5;

    /** The body. */
    final byte[] b;
    /** Where the next byte to read is. */
    int pos;

    WireCursor(byte[] body, int offset) {
        this.b = body;
        this.pos = offset;
    }

    /** The next tag; field 0 is invalid (the reference says so). */
    int tag(int end) {
        int tag = (int) varint(end);
        if (tag >>> 3 == 0) {
            throw new NotCommon();
        }
        return tag;
    }

    /** A varint of up to 10 bytes ending before {@code end}, as protobuf reads it. */
    long varint(int end) {
        int p = pos;
        if (p < end) {
            byte first = b[p];
            if (first >= 0) {
                pos = p + 1;
                return first;
            }
        }
        long result = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            if (p >= end) {
                throw new NotCommon();
            }
            byte x = b[p++];
            result |= (long) (x & 0x7F) << shift;
            if (x >= 0) {
                pos = p;
                return result;
            }
        }
        throw new NotCommon(); // malformed: more than 10 bytes
    }

    long fixed64(int end) {
        int p = pos;
        if (end - p < 8) {
            throw new NotCommon();
        }
        pos = p + 8;
        return (b[p] & 0xFFL)
                | (b[p + 1] & 0xFFL) << 8
                | (b[p + 2] & 0xFFL) << 16
                | (b[p + 3] & 0xFFL) << 24
                | (b[p + 4] & 0xFFL) << 32
                | (b[p + 5] & 0xFFL) << 40
                | (b[p + 6] & 0xFFL) << 48
                | (b[p + 7] & 0xFFL) << 56;
    }

    int fixed32(int end) {
        int p = pos;
        if (end - p < 4) {
            throw new NotCommon();
        }
        pos = p + 4;
        return (b[p] & 0xFF) | (b[p + 1] & 0xFF) << 8 | (b[p + 2] & 0xFF) << 16 | (b[p + 3] & 0xFF) << 24;
    }

    /** Reads a length and skips that many bytes; returns where they start (the parser is where they end). */
    int length(int end) {
        long n = varint(end);
        int at = pos;
        if (n < 0 || n > end - at) {
            throw new NotCommon();
        }
        pos = at + (int) n;
        return at;
    }

    /** Reads a length and returns where those bytes end (the parser is where they start). */
    int lengthEnd(int end) {
        long n = varint(end);
        if (n < 0 || n > end - pos) {
            throw new NotCommon();
        }
        return pos + (int) n;
    }

    String string(int end) {
        int at = length(end);
        return string(at, pos - at);
    }

    /** The UTF-8 string of {@code length} bytes at {@code at}; invalid UTF-8 is the reference's to refuse. */
    String string(int at, int length) {
        if (length == 0) {
            return "";
        }
        int bits = 0;
        for (int i = at; i < at + length; i++) {
            bits |= b[i];
        }
        if (bits >= 0) {
            return new String(b, at, length, StandardCharsets.ISO_8859_1);
        }
        if (!UnsafeByteOperations.unsafeWrap(b, at, length).isValidUtf8()) {
            throw new NotCommon();
        }
        return new String(b, at, length, StandardCharsets.UTF_8);
    }

    /**
     * Skips a field this level does not read, as protobuf-java skips an unknown field. A field number this level's
     * message declares ({@code 1..declared}) with another wire type, or any group, is the reference's to read.
     */
    void skip(int tag, int end, int declared) {
        int field = tag >>> 3;
        if (field <= declared) {
            throw new NotCommon();
        }
        skipKnown(tag, end);
    }

    /** Skips a field whatever its number. */
    void skipKnown(int tag, int end) {
        switch (tag & 7) {
            case VARINT -> varint(end);
            case I64 -> fixed64(end);
            case LEN -> length(end);
            case I32 -> fixed32(end);
            default -> throw new NotCommon(); // groups, and wire types 6 and 7 (invalid)
        }
    }

    /** Whether the {@code length} bytes at {@code at} equal the {@code otherLength} bytes at {@code otherAt}. */
    boolean same(int at, int length, int otherAt, int otherLength) {
        return length == otherLength && Arrays.equals(b, at, at + length, b, otherAt, otherAt + otherLength);
    }
}
