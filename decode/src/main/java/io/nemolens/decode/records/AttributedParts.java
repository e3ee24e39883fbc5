package io.nemolens.decode.records;

import io.nemolens.handlers.record.Attributes;
import org.jspecify.annotations.Nullable;

/**
 * What every part with attributes shares, as OTLP gives them to a resource, a scope, a span, an event and a link: its
 * attributes, gathered one by one as a reader comes upon them (no builder until the first, none at all when none
 * come) or whole, and how many were dropped.
 */
public abstract sealed class AttributedParts permits SpanParts, HeadParts, EventParts, LinkParts {

    private Attributes attributes = Attributes.empty();
    private Attributes.@Nullable Builder builder;
    private int droppedAttributes;

    AttributedParts() {}

    /**
     * The builder the attributes go into, made at the first one.
     *
     * @param expected how many there may be (the builder's first size; at least 4)
     */
    public final Attributes.Builder attributes(int expected) {
        Attributes.Builder b = builder;
        if (b == null) {
            b = Attributes.builder(Math.max(expected, 4));
            builder = b;
        }
        return b;
    }

    /** The attributes, made already (the reference path reads them whole). */
    public final void attributes(Attributes all) {
        attributes = all;
    }

    public final void droppedAttributes(int count) {
        droppedAttributes = count;
    }

    /** The attributes gathered, for the record. */
    final Attributes builtAttributes() {
        Attributes.Builder b = builder;
        return b == null ? attributes : b.build();
    }

    final int droppedAttributes() {
        return droppedAttributes;
    }
}
