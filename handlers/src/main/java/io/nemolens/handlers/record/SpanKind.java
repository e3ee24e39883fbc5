package io.nemolens.handlers.record;

/**
 * What role a span plays in a trace: OTLP's {@code SpanKind}, with its numbers ({@link #code()}).
 *
 * <p>OTLP enums are open: a producer may send a number this version does not know. {@link #fromCode(int)}
 * reads such a number as {@link #UNSPECIFIED}; the number as it arrived stays in {@link Span#kindValue()}
 * (and in the archive).
 */
public enum SpanKind {
    /** 0: the producer did not say. */
    UNSPECIFIED(0),
    /** 1: an internal operation (a training step, a checkpoint write). */
    INTERNAL(1),
    /** 2: the server side of a synchronous call. */
    SERVER(2),
    /** 3: the client side of a synchronous call. */
    CLIENT(3),
    /** 4: the producer of an asynchronous message. */
    PRODUCER(4),
    /** 5: the consumer of an asynchronous message. */
    CONSUMER(5);

    private static final SpanKind[] BY_CODE = values();

    private final int code;

    SpanKind(int code) {
        this.code = code;
    }

    /** The OTLP number, as the archive writes it. */
    public int code() {
        return code;
    }

    /** The kind of an OTLP number; a number this version does not know reads as {@link #UNSPECIFIED}. */
    public static SpanKind fromCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : UNSPECIFIED;
    }
}
