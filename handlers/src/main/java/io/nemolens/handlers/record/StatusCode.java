package io.nemolens.handlers.record;

/**
 * Whether a span's operation succeeded: OTLP's {@code Status.StatusCode}, with its numbers ({@link #code()}).
 *
 * <p>OTLP enums are open: a producer may send a number this version does not know. {@link #fromCode(int)}
 * reads such a number as {@link #UNSET}; the number as it arrived stays in {@link Span#statusCodeValue()}
 * (and in the archive).
 */
public enum StatusCode {
    /** 0: the producer did not say (the default). */
    UNSET(0),
    /** 1: the operation was marked successful. */
    OK(1),
    /** 2: the operation failed; {@link Span#statusMessage()} may say why. */
    ERROR(2);

    private static final StatusCode[] BY_CODE = values();

    private final int code;

    StatusCode(int code) {
        this.code = code;
    }

    /** The OTLP number, as the archive writes it. */
    public int code() {
        return code;
    }

    /** The status code of an OTLP number; a number this version does not know reads as {@link #UNSET}. */
    public static StatusCode fromCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : UNSET;
    }
}
