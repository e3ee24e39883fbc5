package io.nemolens.archive.table;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * An attribute kept as a typed column of its own, beside the typed JSON of every attribute
 * ({@code lens.archive.columns.<table>}): a reader filters on the column without parsing JSON. Its value is the
 * record's own attribute, else its resource's; a value that does not fit the type leaves the column null for that
 * row (the JSON keeps it, as it keeps every attribute).
 *
 * @param attribute the attribute's key, e.g. {@code megatron.microbatch_id}
 * @param type the column's type
 */
public record DedicatedColumn(String attribute, Type type) {

    /** A dedicated column's type, and which attribute values it takes. */
    public enum Type {
        /** int64: an int value, a double without a fraction, or a string that parses as a decimal integer. */
        LONG,
        /** double: a double or an int value, or a string that parses as a number. */
        DOUBLE,
        /** string: a string value, or an int, double or boolean value as its text. */
        STRING,
        /** boolean: a boolean value, or the string {@code true} or {@code false} in any case. */
        BOOLEAN;

        /** The type a setting names: {@code long}, {@code double}, {@code string} or {@code boolean}, in any case. */
        public static Type of(String name) {
            try {
                return valueOf(name.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(
                        "unknown column type '" + name + "' (long, double, string or boolean)", e);
            }
        }
    }

    /**
     * The columns kept by default, per table, besides the columns every archive has always had ({@code run_id},
     * {@code dl_rank}, {@code megatron_iteration}, {@code host_name}, {@code service_name}, the GPU's {@code gpu}
     * and {@code uuid}, ...): the Megatron step attributes NeMo Lens users filter and aggregate on.
     */
    public static final Map<String, List<DedicatedColumn>> DEFAULTS = Map.of(
            "spans",
            List.of(
                    new DedicatedColumn("megatron.microbatch_id", Type.LONG),
                    new DedicatedColumn("megatron.loss", Type.DOUBLE),
                    new DedicatedColumn("megatron.grad_norm", Type.DOUBLE)),
            "logs",
            List.of(new DedicatedColumn("megatron.iteration", Type.LONG)));

    public DedicatedColumn {
        Objects.requireNonNull(attribute, "attribute");
        Objects.requireNonNull(type, "type");
        if (attribute.isBlank()) {
            throw new IllegalArgumentException("a dedicated column needs an attribute key");
        }
    }

    /**
     * The column's name: the attribute's key in lower case, each character outside {@code [a-z0-9_]} as {@code _}
     * ({@code megatron.microbatch_id} → {@code megatron_microbatch_id}).
     */
    public String column() {
        String lower = attribute.toLowerCase(Locale.ROOT);
        StringBuilder name = new StringBuilder(lower.length());
        for (int i = 0; i < lower.length(); i++) {
            char c = lower.charAt(i);
            name.append((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ? c : '_');
        }
        return name.toString();
    }
}
