package io.nemolens.handlers.record;

import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The raw OTLP message a record (or a whole message) was decoded from, parsed only when first asked for.
 *
 * <p>The decoder reads records straight from a body's bytes; a handler that never looks at the raw OTLP does
 * not pay for building protobuf-java's object tree of every span. {@link #get()} parses once and keeps the
 * result (two threads asking at once may both parse; they get equal messages). Two instances are equal when
 * their messages are; {@link #hashCode()} and {@link #toString()} parse too.
 *
 * @param <T> the protobuf message type
 */
public final class RawOtlp<T> implements Supplier<T> {

    private volatile @Nullable Supplier<? extends T> parse;
    private volatile @Nullable T value;

    private RawOtlp(@Nullable Supplier<? extends T> parse, @Nullable T value) {
        this.parse = parse;
        this.value = value;
    }

    /** A message that is already parsed. */
    public static <T> RawOtlp<T> of(T message) {
        return new RawOtlp<>(null, Objects.requireNonNull(message, "message"));
    }

    /**
     * A message that {@code parse} builds when first asked for. It must not fail for the bytes the record was
     * decoded from, and must return equal messages each time it is called.
     */
    public static <T> RawOtlp<T> lazy(Supplier<? extends T> parse) {
        return new RawOtlp<>(Objects.requireNonNull(parse, "parse"), null);
    }

    /** The message; parsed on the first call. */
    @Override
    public T get() {
        T v = value;
        if (v != null) {
            return v;
        }
        Supplier<? extends T> p = parse;
        if (p == null) {
            // another thread parsed it and dropped its parser between our two reads
            return Objects.requireNonNull(value, "value");
        }
        v = Objects.requireNonNull(p.get(), "the parser returned null");
        value = v;
        // the parser holds the message's bytes: they go once the message is here
        parse = null;
        return v;
    }

    /** Whether the message has been parsed (or was given parsed). */
    public boolean isParsed() {
        return value != null;
    }

    @Override
    public boolean equals(@Nullable Object o) {
        return o == this || (o instanceof RawOtlp<?> other && get().equals(other.get()));
    }

    @Override
    public int hashCode() {
        return get().hashCode();
    }

    @Override
    public String toString() {
        return String.valueOf(get());
    }
}
