package io.nemolens.decode.direct.json;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The OTLP/JSON property names of some fields of one message, in both spellings (lowerCamelCase and the
 * {@code .proto}'s snake_case), matched on the body's bytes: {@link #next} moves to the next property and gives the
 * place of its field in the list the names were made from. Immutable.
 */
final class JsonNames {

    /** No names: every property is unknown. */
    static final JsonNames NONE = new JsonNames(new byte[0][], new int[0]);

    /** Each name's ASCII bytes. */
    private final byte[][] names;
    /** By the index of a name in {@link #names}, its {@link #hash}. */
    private final int[] hashes;
    /** By the index of a name in {@link #names}, its field's place in the list. */
    private final int[] fields;

    private JsonNames(byte[][] names, int[] fields) {
        this.names = names;
        this.fields = fields;
        this.hashes = new int[names.length];
        for (int i = 0; i < names.length; i++) {
            int h = 0;
            for (byte c : names[i]) {
                h = hash(h, c);
            }
            hashes[i] = h;
        }
    }

    /** The hash of a name so far, {@code h}, and its next byte: as {@link JsonBytes#name} hashes while it reads. */
    static int hash(int h, byte c) {
        return 31 * h + c;
    }

    /**
     * The names of {@code protoNames}, fields of {@code message}.
     *
     * @throws IllegalArgumentException when the message has no field of one of the names
     */
    static JsonNames of(Descriptor message, String... protoNames) {
        List<byte[]> names = new ArrayList<>();
        List<Integer> fields = new ArrayList<>();
        for (int i = 0; i < protoNames.length; i++) {
            FieldDescriptor field = message.findFieldByName(protoNames[i]);
            if (field == null) {
                throw new IllegalArgumentException(message.getFullName() + " has no field '" + protoNames[i] + "'");
            }
            names.add(field.getJsonName().getBytes(StandardCharsets.US_ASCII));
            fields.add(i);
            if (!field.getName().equals(field.getJsonName())) {
                names.add(field.getName().getBytes(StandardCharsets.US_ASCII));
                fields.add(i);
            }
        }
        return new JsonNames(
                names.toArray(byte[][]::new),
                fields.stream().mapToInt(Integer::intValue).toArray());
    }

    /**
     * The place of the field named by the bytes of {@code b} from {@code start} to {@code end}, whose {@link #hash} is
     * {@code hash}, or {@link JsonBytes#UNKNOWN}.
     */
    int match(byte[] b, int start, int end, int hash) {
        int length = end - start;
        for (int i = 0; i < names.length; i++) {
            if (hashes[i] == hash && names[i].length == length && same(names[i], b, start)) {
                return fields[i];
            }
        }
        return JsonBytes.UNKNOWN;
    }

    /** A loop, not {@code Arrays.equals}: for names of a few bytes its set-up cost more than the comparison. */
    private static boolean same(byte[] name, byte[] b, int start) {
        for (int k = 0; k < name.length; k++) {
            if (name[k] != b[start + k]) {
                return false;
            }
        }
        return true;
    }

    /**
     * Moves to the next property of the object {@code in} is in whose value is not {@code null}, unknown properties
     * skipped, and leaves {@code in} before the value: that field's place, or {@link JsonBytes#END} at the object's
     * end (consumed).
     */
    int next(JsonBytes in) {
        while (true) {
            int field = in.name(this);
            if (field >= 0) {
                if (!in.isNull()) {
                    return field;
                }
            } else if (field == JsonBytes.END) {
                return JsonBytes.END;
            } else {
                in.skip();
            }
        }
    }
}
