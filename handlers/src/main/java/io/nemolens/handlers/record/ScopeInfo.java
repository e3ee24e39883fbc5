package io.nemolens.handlers.record;

import java.util.Objects;

/**
 * The OTLP instrumentation scope a record was produced under.
 *
 * @param name the scope name, or {@code ""}
 * @param version the scope version, or {@code ""}
 * @param attributes the scope attributes
 * @param droppedAttributesCount how many scope attributes the producer dropped
 * @param schemaUrl the schema URL of the enclosing {@code ScopeSpans}/{@code ScopeMetrics}/{@code ScopeLogs}, or {@code ""}
 */
public record ScopeInfo(
        String name, String version, Attributes attributes, int droppedAttributesCount, String schemaUrl) {

    /** The scope with nothing set. */
    public static final ScopeInfo EMPTY = new ScopeInfo("", "", Attributes.empty(), 0, "");

    public ScopeInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(version, "version");
        Objects.requireNonNull(attributes, "attributes");
        Objects.requireNonNull(schemaUrl, "schemaUrl");
    }
}
