package io.nemolens.decode.direct.protobuf;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.decode.DecodeException;
import io.nemolens.decode.ProtobufRequests;
import io.nemolens.decode.reference.ProtoRecordMapper;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.record.Span;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Trace requests written field by field at random from the protobuf grammar, not damaged from real ones: fields
 * twice, several members of a oneof, every wire type in unknown fields, known numbers with other wire types,
 * overlong and ten-byte varints, invalid UTF-8, ids of every length, fields in any order. The reader never
 * throws, and whatever it returns equals what the reference returns (it found the oneof merge this way).
 */
class ProtobufSpansGrammarTest {

    @Test
    void randomRequestsFromTheGrammarAreReadAlikeOrLeftToTheReference() {
        int read = 0;
        int referenceRead = 0;
        for (long seed = 0; seed < 30_000; seed++) {
            byte[] body = new Bodies(20261203L + seed).request();
            List<Span> fast = ProtobufSpans.read(body, 0, body.length);
            List<Span> reference = null;
            try {
                reference = ProtoRecordMapper.spans(
                        (ExportTraceServiceRequest) ProtobufRequests.parse(Signal.SPANS, body, 0, body.length));
                referenceRead++;
            } catch (DecodeException | IllegalArgumentException e) {
                // the reference refuses it: so must the reader
            }
            if (fast != null) {
                read++;
                assertThat(reference)
                        .as("seed %d: the reader read what the reference refuses", seed)
                        .isNotNull();
                assertThat(fast).as("seed %d", seed).isEqualTo(reference);
            }
        }
        assertThat(read).isGreaterThan(3_000);
        assertThat(referenceRead).isGreaterThan(read);
    }

    /** One random request. */
    private static final class Bodies {
        private final Random r;

        private Bodies(long seed) {
            r = new Random(seed);
        }

        static final class W extends ByteArrayOutputStream {}

        boolean p(double x) {
            return r.nextDouble() < x;
        }

        void varint(W o, long v) {
            // canonical, or overlong, or 10-byte with junk high bits in 10th byte
            int mode = r.nextInt(20);
            if (mode == 0 && v >= 0 && v < (1L << 56)) { // overlong: extra 0x80..0x00
                int extra = 1 + r.nextInt(3);
                List<Integer> bytes = new ArrayList<>();
                long x = v;
                do {
                    bytes.add((int) (x & 0x7F));
                    x >>>= 7;
                } while (x != 0);
                for (int i = 0; i < extra && bytes.size() < 10; i++) bytes.add(0);
                for (int i = 0; i < bytes.size(); i++) o.write(bytes.get(i) | (i < bytes.size() - 1 ? 0x80 : 0));
                return;
            }
            if (mode == 1) { // 10 bytes, 10th byte arbitrary non-negative
                long x = v;
                for (int i = 0; i < 9; i++) {
                    o.write((int) (x & 0x7F) | 0x80);
                    x >>>= 7;
                }
                o.write(r.nextInt(128));
                return;
            }
            long x = v;
            while ((x & ~0x7FL) != 0) {
                o.write((int) (x & 0x7F) | 0x80);
                x >>>= 7;
            }
            o.write((int) x);
        }

        void tag(W o, int field, int wt) {
            varint(o, ((long) field << 3) | wt);
        }

        void len(W o, int field, byte[] payload) {
            tag(o, field, 2);
            varint(o, payload.length);
            o.writeBytes(payload);
        }

        void fixed64(W o, int field, long v) {
            tag(o, field, 1);
            for (int i = 0; i < 8; i++) o.write((int) (v >>> (8 * i)));
        }

        void fixed32(W o, int field, int v) {
            tag(o, field, 5);
            for (int i = 0; i < 4; i++) o.write(v >>> (8 * i));
        }

        void vfield(W o, int field, long v) {
            tag(o, field, 0);
            varint(o, v);
        }

        long randVarintValue() {
            switch (r.nextInt(8)) {
                case 0:
                    return 0;
                case 1:
                    return r.nextInt(5);
                case 2:
                    return r.nextLong();
                case 3:
                    return -1 - r.nextInt(3);
                case 4:
                    return (1L << 32) + r.nextInt(5);
                case 5:
                    return 0xFFFFFFFFL;
                case 6:
                    return Integer.MAX_VALUE + (long) r.nextInt(3);
                default:
                    return r.nextInt(2000);
            }
        }

        static final String[] STR = {"", "a", "key", "http.method", "é", "日本", "\uD83D\uDE00", "service.name", "x"};

        byte[] str() {
            if (p(0.03)) { // random bytes, maybe invalid utf8
                byte[] b = new byte[1 + r.nextInt(4)];
                r.nextBytes(b);
                return b;
            }
            if (p(0.01)) return new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80}; // surrogate
            if (p(0.01)) return new byte[] {(byte) 0xC0, (byte) 0x80}; // overlong
            return STR[r.nextInt(STR.length)].getBytes(StandardCharsets.UTF_8);
        }

        byte[][] traceIds = new byte[4][];
        byte[][] spanIds = new byte[6][];

        void initIds() {
            for (int i = 0; i < traceIds.length; i++) {
                traceIds[i] = new byte[16];
                r.nextBytes(traceIds[i]);
            }
            traceIds[0] = new byte[16];
            for (int i = 0; i < spanIds.length; i++) {
                spanIds[i] = new byte[8];
                r.nextBytes(spanIds[i]);
            }
            spanIds[0] = new byte[8];
        }

        byte[] id(byte[][] pool, int size) {
            int m = r.nextInt(40);
            if (m == 0) return new byte[0];
            if (m == 1) {
                byte[] b = new byte[r.nextInt(20)];
                r.nextBytes(b);
                return b;
            }
            if (m == 2) return new byte[size == 16 ? 8 : 16];
            return pool[r.nextInt(pool.length)];
        }

        void unknown(W o, int declared) {
            int field = declared + 1 + r.nextInt(p(0.5) ? 5 : 1000);
            if (p(0.1)) field = 1 + r.nextInt(declared); // known number, maybe wrong wire type
            if (p(0.02)) field = (1 << 29) - 1;
            int wt = new int[] {0, 1, 2, 5, 0, 2}[r.nextInt(6)];
            if (p(0.01)) wt = 3 + r.nextInt(5);
            switch (wt) {
                case 0 -> vfield(o, field, randVarintValue());
                case 1 -> fixed64(o, field, r.nextLong());
                case 2 -> {
                    byte[] b = new byte[r.nextInt(5)];
                    r.nextBytes(b);
                    len(o, field, b);
                }
                case 5 -> fixed32(o, field, r.nextInt());
                case 3 -> {
                    tag(o, field, 3);
                    tag(o, field, 4);
                }
                default -> tag(o, field, wt);
            }
        }

        byte[] anyValue(int depth) {
            W o = new W();
            int n = p(0.85) ? 1 : r.nextInt(4);
            for (int i = 0; i < n; i++) {
                int k = 1 + r.nextInt(depth > 3 ? 4 : 7);
                if (p(0.01)) k = 8;
                switch (k) {
                    case 1 -> len(o, 1, str());
                    case 2 -> vfield(o, 2, p(0.2) ? randVarintValue() : r.nextInt(2));
                    case 3 -> vfield(o, 3, randVarintValue());
                    case 4 ->
                        fixed64(
                                o,
                                4,
                                p(0.2)
                                        ? Double.doubleToRawLongBits(Double.NaN) ^ r.nextInt(3)
                                        : (p(0.1) ? Long.MIN_VALUE : Double.doubleToLongBits(r.nextInt(5) / 2.0)));
                    case 5 -> {
                        W a = new W();
                        int m = r.nextInt(3);
                        for (int j = 0; j < m; j++) len(a, 1, anyValue(depth + 1));
                        if (p(0.05)) unknown(a, 1);
                        len(o, 5, a.toByteArray());
                    }
                    case 6 -> {
                        W a = new W();
                        int m = r.nextInt(3);
                        for (int j = 0; j < m; j++) len(a, 1, keyValue(depth + 1));
                        if (p(0.05)) unknown(a, 1);
                        len(o, 6, a.toByteArray());
                    }
                    case 7 -> {
                        byte[] b = new byte[r.nextInt(4)];
                        r.nextBytes(b);
                        len(o, 7, b);
                    }
                    case 8 -> vfield(o, 8, randVarintValue());
                }
            }
            if (p(0.05)) unknown(o, 8);
            return o.toByteArray();
        }

        static final String[] KEYS = {"a", "b", "k", "é", ""};

        byte[] keyValue(int depth) {
            W o = new W();
            List<Runnable> parts = new ArrayList<>();
            if (p(0.95))
                parts.add(() ->
                        len(o, 1, p(0.9) ? KEYS[r.nextInt(KEYS.length)].getBytes(StandardCharsets.UTF_8) : str()));
            if (p(0.02)) parts.add(() -> len(o, 1, str()));
            if (p(0.9)) parts.add(() -> len(o, 2, anyValue(depth)));
            if (p(0.03)) parts.add(() -> len(o, 2, anyValue(depth)));
            if (p(0.01)) parts.add(() -> vfield(o, 3, r.nextInt(3)));
            if (p(0.05)) parts.add(() -> unknown(o, 3));
            Collections.shuffle(parts, r);
            parts.forEach(Runnable::run);
            return o.toByteArray();
        }

        void attrs(W o, int field) {
            int n = r.nextInt(p(0.1) ? 40 : 4);
            for (int i = 0; i < n; i++) len(o, field, keyValue(0));
        }

        byte[] span() {
            W o = new W();
            List<Runnable> parts = new ArrayList<>();
            parts.add(() -> len(o, 1, id(traceIds, 16)));
            if (p(0.05)) parts.add(() -> len(o, 1, id(traceIds, 16)));
            parts.add(() -> len(o, 2, id(spanIds, 8)));
            if (p(0.7)) parts.add(() -> len(o, 4, id(spanIds, 8)));
            if (p(0.05)) parts.add(() -> len(o, 4, id(spanIds, 8)));
            if (p(0.3)) parts.add(() -> len(o, 3, str()));
            if (p(0.9)) parts.add(() -> len(o, 5, str()));
            if (p(0.05)) parts.add(() -> len(o, 5, str()));
            if (p(0.7)) parts.add(() -> vfield(o, 6, randVarintValue()));
            if (p(0.05)) parts.add(() -> vfield(o, 6, randVarintValue()));
            if (p(0.8)) parts.add(() -> fixed64(o, 7, r.nextLong()));
            if (p(0.8)) parts.add(() -> fixed64(o, 8, r.nextLong()));
            parts.add(() -> attrs(o, 9));
            if (p(0.2)) parts.add(() -> vfield(o, 10, randVarintValue()));
            if (p(0.3))
                parts.add(() -> {
                    int n = r.nextInt(3);
                    for (int i = 0; i < n; i++) len(o, 11, event());
                });
            if (p(0.2)) parts.add(() -> vfield(o, 12, randVarintValue()));
            if (p(0.3))
                parts.add(() -> {
                    int n = r.nextInt(3);
                    for (int i = 0; i < n; i++) len(o, 13, link());
                });
            if (p(0.2)) parts.add(() -> vfield(o, 14, randVarintValue()));
            if (p(0.5)) parts.add(() -> len(o, 15, status()));
            if (p(0.02)) parts.add(() -> len(o, 15, status()));
            if (p(0.5)) parts.add(() -> fixed32(o, 16, r.nextInt()));
            if (p(0.05)) parts.add(() -> fixed32(o, 16, r.nextInt()));
            if (p(0.1)) parts.add(() -> unknown(o, 16));
            Collections.shuffle(parts, r);
            parts.forEach(Runnable::run);
            return o.toByteArray();
        }

        byte[] status() {
            W o = new W();
            if (p(0.5)) len(o, 2, str());
            if (p(0.7)) vfield(o, 3, p(0.9) ? r.nextInt(3) : randVarintValue());
            if (p(0.1)) vfield(o, 3, r.nextInt(3));
            if (p(0.05)) unknown(o, 3);
            return o.toByteArray();
        }

        byte[] event() {
            W o = new W();
            if (p(0.8)) fixed64(o, 1, r.nextLong());
            if (p(0.8)) len(o, 2, str());
            attrs(o, 3);
            if (p(0.2)) vfield(o, 4, randVarintValue());
            if (p(0.05)) unknown(o, 4);
            if (p(0.05)) len(o, 2, str());
            return o.toByteArray();
        }

        byte[] link() {
            W o = new W();
            if (p(0.9)) len(o, 1, id(traceIds, 16));
            if (p(0.9)) len(o, 2, id(spanIds, 8));
            if (p(0.3)) len(o, 3, str());
            attrs(o, 4);
            if (p(0.2)) vfield(o, 5, randVarintValue());
            if (p(0.3)) fixed32(o, 6, r.nextInt());
            if (p(0.05)) unknown(o, 6);
            return o.toByteArray();
        }

        byte[] resource() {
            W o = new W();
            attrs(o, 1);
            if (p(0.2)) vfield(o, 2, randVarintValue());
            if (p(0.1)) {
                W e = new W();
                if (p(0.5)) len(e, 1, str());
                if (p(0.5)) len(e, 2, str());
                for (int i = r.nextInt(3); i > 0; i--) len(e, 3 + r.nextInt(2), str());
                if (p(0.1)) unknown(e, 4);
                len(o, 3, e.toByteArray());
            }
            if (p(0.05)) unknown(o, 3);
            return o.toByteArray();
        }

        byte[] scope() {
            W o = new W();
            if (p(0.5)) len(o, 1, str());
            if (p(0.5)) len(o, 2, str());
            if (p(0.3)) attrs(o, 3);
            if (p(0.2)) vfield(o, 4, randVarintValue());
            if (p(0.05)) unknown(o, 4);
            return o.toByteArray();
        }

        byte[] scopeSpans() {
            W o = new W();
            List<Runnable> parts = new ArrayList<>();
            if (p(0.7)) parts.add(() -> len(o, 1, scope()));
            if (p(0.02)) parts.add(() -> len(o, 1, scope()));
            int n = r.nextInt(4);
            for (int i = 0; i < n; i++) parts.add(() -> len(o, 2, span()));
            if (p(0.3)) parts.add(() -> len(o, 3, str()));
            if (p(0.05)) parts.add(() -> len(o, 3, str()));
            if (p(0.05)) parts.add(() -> unknown(o, 3));
            if (p(0.5)) Collections.shuffle(parts, r);
            parts.forEach(Runnable::run);
            return o.toByteArray();
        }

        byte[] resourceSpans() {
            W o = new W();
            List<Runnable> parts = new ArrayList<>();
            if (p(0.7)) parts.add(() -> len(o, 1, resource()));
            if (p(0.02)) parts.add(() -> len(o, 1, resource()));
            int n = r.nextInt(3);
            for (int i = 0; i < n; i++) parts.add(() -> len(o, 2, scopeSpans()));
            if (p(0.3)) parts.add(() -> len(o, 3, str()));
            if (p(0.05)) parts.add(() -> unknown(o, 3));
            if (p(0.5)) Collections.shuffle(parts, r);
            parts.forEach(Runnable::run);
            return o.toByteArray();
        }

        byte[] request() {
            initIds();
            W o = new W();
            int n = 1 + r.nextInt(3);
            for (int i = 0; i < n; i++) len(o, 1, resourceSpans());
            if (p(0.05)) unknown(o, 1);
            byte[] b = o.toByteArray();
            if (p(0.05) && b.length > 0) { // damage
                b = b.clone();
                b[r.nextInt(b.length)] ^= (byte) (1 << r.nextInt(8));
            }
            if (p(0.02) && b.length > 1) b = Arrays.copyOf(b, r.nextInt(b.length));
            return b;
        }
    }
}
