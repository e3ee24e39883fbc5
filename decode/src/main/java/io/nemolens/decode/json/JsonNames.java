package io.nemolens.decode.json;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import io.nemolens.decode.records.NotCommon;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.sym.BinaryNameMatcher;
import tools.jackson.core.sym.PropertyNameMatcher;

/**
 * The OTLP/JSON property names of some fields of one message, in both spellings (lowerCamelCase and the
 * {@code .proto}'s snake_case), matched on the parser's raw bytes: {@link #next} moves the parser to the next
 * property and gives the place of its field in the list the names were made from. Immutable.
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

    /**
     * Moves {@code p} to the next property of the object it is in whose value is not {@code null}, unknown
     * properties skipped, and leaves it on the value: that field's place, or -1 at the object's end. For the direct
     * span reader: anything else is the reference's to judge ({@link NotCommon}).
     */
    int next(JsonParser p) {
        while (true) {
            int match = p.nextNameMatch(matcher);
            if (match >= 0) {
                if (p.nextToken() != JsonToken.VALUE_NULL) {
                    return fields[match];
                }
            } else if (match == PropertyNameMatcher.MATCH_END_OBJECT) {
                return -1;
            } else if (match == PropertyNameMatcher.MATCH_UNKNOWN_NAME) {
                p.nextToken();
                p.skipChildren();
            } else {
                throw new NotCommon();
            }
        }
    }
}
