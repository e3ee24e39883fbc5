package io.nemolens.decode.records;

/**
 * How deep both encodings may nest: the limits {@code io.nemolens.decode.OtlpDecoder} publishes (and documents) as its
 * own, kept here so that the readers of either encoding read them without reaching up to the decoder.
 */
public final class Limits {

    /** How deep arrays and key-value lists may nest in one value: {@code OtlpDecoder.MAX_VALUE_NESTING} says why. */
    public static final int MAX_VALUE_NESTING = 100;

    /** The nesting both parsers accept (Jackson's default depth): {@code OtlpDecoder.MAX_PARSE_DEPTH} says why. */
    public static final int MAX_PARSE_DEPTH = tools.jackson.core.StreamReadConstraints.DEFAULT_MAX_DEPTH;

    private Limits() {}

    /**
     * The depth inside one more array or key-value list, for a direct reader: deeper than
     * {@link #MAX_VALUE_NESTING} is the reference's to refuse.
     *
     * @throws NotCommon past the limit
     */
    public static int deeper(int depth) {
        if (depth >= MAX_VALUE_NESTING) {
            throw new NotCommon();
        }
        return depth + 1;
    }
}
