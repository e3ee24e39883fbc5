package io.nemolens.decode.records;

import io.nemolens.handlers.record.Attributes;
import io.nemolens.handlers.record.SpanLink;

/**
 * What a span's link is made of, gathered field by field as a reader comes upon them, and the one construction of a
 * {@link SpanLink}. Not thread-safe: one reader fills one instance.
 */
public final class LinkParts extends AttributedParts {

    private String traceId = "";
    private String spanId = "";
    private String traceState = "";
    private int flags;

    public void traceId(String hex) {
        traceId = hex;
    }

    public void spanId(String hex) {
        spanId = hex;
    }

    public void traceState(String traceState) {
        this.traceState = traceState;
    }

    public void flags(int flags) {
        this.flags = flags;
    }

    public SpanLink link() {
        return link(traceId, spanId, traceState, builtAttributes(), droppedAttributes(), flags);
    }

    /** A link whose attributes are made already (the reference path reads them whole). */
    public static SpanLink link(
            String traceId, String spanId, String traceState, Attributes attributes, int dropped, int flags) {
        return new SpanLink(traceId, spanId, traceState, attributes, dropped, flags);
    }
}
