package io.nemolens.handlers.record;

/**
 * How a sum's or histogram's points relate over time: OTLP's {@code AggregationTemporality}, with its numbers
 * ({@link #code()}).
 *
 * <p>OTLP enums are open: a producer may send a number this version does not know. {@link #fromCode(int)}
 * reads such a number as {@link #UNSPECIFIED}; the number as it arrived stays in
 * {@link MetricInfo#aggregationTemporalityValue()} (and in the archive).
 */
public enum AggregationTemporality {
    /** 0: not said; gauges and summaries have none. */
    UNSPECIFIED(0),
    /** 1: each point covers the interval since the previous one. */
    DELTA(1),
    /** 2: each point covers the interval since a fixed start. */
    CUMULATIVE(2);

    private static final AggregationTemporality[] BY_CODE = values();

    private final int code;

    AggregationTemporality(int code) {
        this.code = code;
    }

    /** The OTLP number, as the archive writes it. */
    public int code() {
        return code;
    }

    /** The temporality of an OTLP number; a number this version does not know reads as {@link #UNSPECIFIED}. */
    public static AggregationTemporality fromCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : UNSPECIFIED;
    }
}
