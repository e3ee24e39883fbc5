package io.nemolens.consumer.dispatch;

import io.nemolens.handlers.MessageSink;
import io.nemolens.handlers.RecordKind;
import io.nemolens.handlers.SignalHandler;
import io.nemolens.handlers.record.TelemetryRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;

/** The handlers the application context holds, per {@link RecordKind}, and the message sinks, each in {@code @Order}. */
public final class HandlerRegistry {

    private final List<List<? extends SignalHandler<?>>> handlers;
    private final List<MessageSink> sinks;

    private HandlerRegistry(List<List<? extends SignalHandler<?>>> handlers, List<MessageSink> sinks) {
        this.handlers = List.copyOf(handlers);
        this.sinks = List.copyOf(sinks);
    }

    /** A registry with no handler and no sink yet. */
    public static Builder builder() {
        return new Builder();
    }

    /** The handlers of one kind of record, in {@code @Order}. */
    @SuppressWarnings("unchecked") // the builder stores only handlers of the kind's own type under its index
    public <T extends TelemetryRecord> List<SignalHandler<T>> handlers(RecordKind<T> kind) {
        return (List<SignalHandler<T>>) handlers.get(kind.index());
    }

    /** What takes every message once its handlers succeeded (the archive), in {@code @Order}. */
    public List<MessageSink> sinks() {
        return sinks;
    }

    /** For the start-up log: {@code 1 for span, 0 for metric_point, ...; 1 message sink(s)}. */
    @Override
    public String toString() {
        StringJoiner s = new StringJoiner(", ", "", "; " + sinks.size() + " message sink(s)");
        for (RecordKind<?> kind : RecordKind.all()) {
            s.add(handlers.get(kind.index()).size() + " for " + kind.tag());
        }
        return s.toString();
    }

    /** Collects handlers by kind and the sinks. */
    public static final class Builder {

        private final List<List<? extends SignalHandler<?>>> handlers = new ArrayList<>();
        private List<MessageSink> sinks = List.of();

        private Builder() {
            for (int i = 0; i < RecordKind.all().size(); i++) {
                handlers.add(List.of());
            }
        }

        /** The handlers of one kind, in the order they are called. */
        public <T extends TelemetryRecord> Builder handlers(RecordKind<T> kind, List<? extends SignalHandler<T>> list) {
            handlers.set(kind.index(), List.copyOf(list));
            return this;
        }

        /** The message sinks, in the order they are called. */
        public Builder sinks(List<MessageSink> list) {
            sinks = List.copyOf(list);
            return this;
        }

        public HandlerRegistry build() {
            return new HandlerRegistry(handlers, sinks);
        }
    }
}
