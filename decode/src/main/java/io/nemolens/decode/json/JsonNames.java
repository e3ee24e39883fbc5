package io.nemolens.decode.json;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.core.sym.BinaryNameMatcher;
import tools.jackson.core.sym.PropertyNameMatcher;

/**
 * The OTLP/JSON property names of some fields of one message, in both spellings (lowerCamelCase and the
 * {@code .proto}'s snake_case), matched on the parser's raw bytes: {@link #field} turns a match into the
 * field's place in the list the names were made from. Immutable.
 *
 * @param matcher the names, for {@code JsonParser.nextNameMatch}
 * @param fields by the index {@code matcher} gives, the field's place in the list
 */
record JsonNames(PropertyNameMatcher matcher, int[] fields) {

    /**
     * The names of {@code protoNames}, fields of {@code message}.
     *
     * @throws IllegalArgumentException when the message has no field of one of the names
     */
    static JsonNames of(Descriptor message, String... protoNames) {
        List<String> names = new ArrayList<>();
        List<Integer> fields = new ArrayList<>();
        for (int i = 0; i < protoNames.length; i++) {
            FieldDescriptor field = message.findFieldByName(protoNames[i]);
            if (field == null) {
                throw new IllegalArgumentException(message.getFullName() + " has no field '" + protoNames[i] + "'");
            }
            // interned: a matcher asked about a name as a string compares by identity first
            names.add(field.getJsonName().intern());
            fields.add(i);
            if (!field.getName().equals(field.getJsonName())) {
                names.add(field.getName().intern());
                fields.add(i);
            }
        }
        return new JsonNames(
                BinaryNameMatcher.construct(names),
                fields.stream().mapToInt(Integer::intValue).toArray());
    }

    /** The place of the field a non-negative match names. */
    int field(int match) {
        return fields[match];
    }
}
