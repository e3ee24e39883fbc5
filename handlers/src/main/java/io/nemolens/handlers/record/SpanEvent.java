package io.nemolens.handlers.record;

import java.util.Objects;

/**
 * A span event.
 *
 * @param timeUnixNano when it happened
 * @param name the event name, e.g. {@code exception}
 * @param attributes event attributes
 * @param droppedAttributesCount attributes the producer dropped
 */
public record SpanEvent(long timeUnixNano, String name, Attributes attributes, int droppedAttributesCount) {
    public SpanEvent {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(attributes, "attributes");
    }
}
