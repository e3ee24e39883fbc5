package io.nemolens.decode.records;

import io.nemolens.handlers.record.AnyValue;

/**
 * One shared record of each bool value and of each small int value, which attributes such as iteration counters,
 * ranks and sizes repeat: every reader makes these values here. Thread-safe.
 */
public final class SharedValues {

    private static final AnyValue TRUE = new AnyValue.BoolValue(true);
    private static final AnyValue FALSE = new AnyValue.BoolValue(false);
    private static final AnyValue[] SMALL_INTS = new AnyValue[1024];

    static {
        for (int i = 0; i < SMALL_INTS.length; i++) {
            SMALL_INTS[i] = new AnyValue.IntValue(i);
        }
    }

    private SharedValues() {}

    /** The one record of each bool value. */
    public static AnyValue bool(boolean value) {
        return value ? TRUE : FALSE;
    }

    /** The record of an int value: one shared instance each for the small ones. */
    public static AnyValue integer(long value) {
        return value >= 0 && value < SMALL_INTS.length ? SMALL_INTS[(int) value] : new AnyValue.IntValue(value);
    }
}
