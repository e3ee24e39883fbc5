package io.nemolens.decode.reference.json;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import tools.jackson.core.sym.BinaryNameMatcher;
import tools.jackson.core.sym.PropertyNameMatcher;

/**
 * How {@link JsonCursor#message} reads one protobuf message type from OTLP/JSON: each field declared
 * once, by its {@code .proto} name, with the code that reads its value into the builder. The names the
 * field is matched by, its lowerCamelCase JSON name and its snake_case proto name, come from the
 * message's descriptor; a name the descriptor does not have fails when the table is built. Names are
 * matched on the parser's raw bytes, without creating strings.
 *
 * <p>A record because the JIT compiler trusts a record's final fields: where it inlines the reading
 * loop for a table held in a constant, it sees {@link #newBuilder} and {@link #build} as constants
 * and calls them directly, as hand-written code would. Built with {@link #of}; immutable.
 *
 * @param <M> the message
 * @param <B> its builder
 * @param descriptor the message type
 * @param newBuilder the message's {@code newBuilder}
 * @param build the builder's {@code build}
 * @param fields the fields the table reads, in the order they were declared
 * @param names the field names in both spellings: the parser's name match gives an index into {@code readers}
 * @param readers by the index {@code names} matches; both spellings of a field share its reader
 * @param refusedNames names that mean the object is another message (see {@link Builder#refusingFieldsOf})
 */
record FieldTable<M extends Message, B extends Message.Builder>(
        Descriptor descriptor,
        Supplier<B> newBuilder,
        Function<B, M> build,
        List<FieldDescriptor> fields,
        PropertyNameMatcher names,
        FieldReader<B>[] readers,
        Set<String> refusedNames) {

    /** Reads the value the cursor is on, never JSON {@code null}, into the builder. */
    @FunctionalInterface
    interface FieldReader<B> {
        void read(JsonCursor cursor, B builder);
    }

    /**
     * Starts the table of a message type.
     *
     * @param newBuilder the message's {@code newBuilder}
     * @param build the builder's {@code build}
     */
    static <M extends Message, B extends Message.Builder> Builder<M, B> of(
            Supplier<B> newBuilder, Function<B, M> build) {
        return new Builder<>(newBuilder, build);
    }

    /** Whether a property of this name means the object is another message, not this one. */
    boolean refuses(String name) {
        return !refusedNames.isEmpty() && refusedNames.contains(name);
    }

    /** Declares the fields of one table. */
    static final class Builder<M extends Message, B extends Message.Builder> {
        private final Descriptor descriptor;
        private final Supplier<B> newBuilder;
        private final Function<B, M> build;
        private final Map<FieldDescriptor, FieldReader<B>> readers = new LinkedHashMap<>();
        private final Set<String> refusedNames = new HashSet<>();

        private Builder(Supplier<B> newBuilder, Function<B, M> build) {
            this.newBuilder = newBuilder;
            this.build = build;
            this.descriptor = newBuilder.get().getDescriptorForType();
        }

        /**
         * Declares a field.
         *
         * @param protoName the field's name in the {@code .proto} file
         * @param reader reads the field's value into the builder
         * @throws IllegalArgumentException when the message has no such field, or it is declared already
         */
        Builder<M, B> field(String protoName, FieldReader<B> reader) {
            FieldDescriptor field = descriptor.findFieldByName(protoName);
            if (field == null) {
                throw new IllegalArgumentException(descriptor.getFullName() + " has no field '" + protoName + "'");
            }
            if (readers.putIfAbsent(field, reader) != null) {
                throw new IllegalArgumentException(field.getFullName() + " is declared twice");
            }
            return this;
        }

        /**
         * Refuses the names of {@code other}'s fields, in either spelling and whatever their value, null
         * included: for the top-level object, where another signal's request means that the body and
         * the routing key disagree.
         */
        Builder<M, B> refusingFieldsOf(Descriptor other) {
            for (FieldDescriptor field : other.getFields()) {
                refusedNames.add(field.getJsonName());
                refusedNames.add(field.getName());
            }
            return this;
        }

        FieldTable<M, B> build() {
            List<String> names = new ArrayList<>();
            List<FieldReader<B>> byName = new ArrayList<>();
            readers.forEach((field, reader) -> {
                // interned: a matcher asked about a name as a string compares by identity first
                names.add(field.getJsonName().intern());
                byName.add(reader);
                if (!field.getName().equals(field.getJsonName())) {
                    names.add(field.getName().intern());
                    byName.add(reader);
                }
            });
            return new FieldTable<>(
                    descriptor,
                    newBuilder,
                    build,
                    List.copyOf(readers.keySet()),
                    BinaryNameMatcher.construct(names),
                    toArray(byName),
                    Set.copyOf(refusedNames));
        }

        @SuppressWarnings("unchecked") // an array of a generic type; every element is a FieldReader<B>
        private static <B> FieldReader<B>[] toArray(List<FieldReader<B>> readers) {
            return readers.toArray((FieldReader<B>[]) new FieldReader<?>[0]);
        }
    }
}
