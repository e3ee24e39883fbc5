package io.nemolens.handlers.record;

/**
 * The value of a gauge or sum point, or of an exemplar: a double, a 64-bit integer, or nothing (a
 * Prometheus staleness marker has no value: never read it as 0).
 *
 * @param kind which one it is
 * @param asDouble the value as a double (an integer converted; 0 when absent)
 * @param asLong the integer value (0 unless {@code kind} is {@link Kind#INT})
 */
public record NumberValue(Kind kind, double asDouble, long asLong) {

    /** Which value a point carries. */
    public enum Kind {
        DOUBLE,
        INT,
        NONE
    }

    /** The value that is not there. */
    public static final NumberValue NONE = new NumberValue(Kind.NONE, 0, 0);

    public static NumberValue ofDouble(double value) {
        return new NumberValue(Kind.DOUBLE, value, 0);
    }

    public static NumberValue ofLong(long value) {
        return new NumberValue(Kind.INT, value, value);
    }

    /** Whether a value is there. */
    public boolean isPresent() {
        return kind != Kind.NONE;
    }
}
