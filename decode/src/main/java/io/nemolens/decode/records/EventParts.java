package io.nemolens.decode.records;

import io.nemolens.handlers.record.Attributes;
import io.nemolens.handlers.record.SpanEvent;

/**
 * What a span's event is made of, gathered field by field as a reader comes upon them, and the one construction of a
 * {@link SpanEvent}. Not thread-safe: one reader fills one instance.
 */
public final class EventParts extends AttributedParts {

    private long time;
    private String name = "";

    public void time(long unixNanos) {
        time = unixNanos;
    }

    public void name(String name) {
        this.name = name;
    }

    public SpanEvent event() {
        return event(time, name, builtAttributes(), droppedAttributes());
    }

    /** An event whose attributes are made already (the reference path reads them whole). */
    public static SpanEvent event(long time, String name, Attributes attributes, int dropped) {
        return new SpanEvent(time, name, attributes, dropped);
    }
}
