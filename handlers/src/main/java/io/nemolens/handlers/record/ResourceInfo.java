package io.nemolens.handlers.record;

import java.util.Objects;

/**
 * The OTLP resource a record came from: the process or scrape target that produced it.
 * Every record of one resource block shares one instance.
 *
 * @param attributes the resource attributes ({@code service.name}, {@code nemo.run.id}, {@code host.name}, ...)
 * @param droppedAttributesCount how many attributes the producer dropped
 * @param schemaUrl the schema URL of the enclosing {@code ResourceSpans}/{@code ResourceMetrics}/{@code ResourceLogs}, or {@code ""}
 */
public record ResourceInfo(Attributes attributes, int droppedAttributesCount, String schemaUrl) {

    /** The attribute that names a NeMo Lens training run. */
    public static final String RUN_ID = "nemo.run.id";

    /** The resource with no attributes. */
    public static final ResourceInfo EMPTY = new ResourceInfo(Attributes.empty(), 0, "");

    public ResourceInfo {
        Objects.requireNonNull(attributes, "attributes");
        Objects.requireNonNull(schemaUrl, "schemaUrl");
    }

    /** The {@code nemo.run.id} resource attribute as text, or {@code ""} when absent. */
    public String runId() {
        return attributes.getText(RUN_ID, "");
    }

    /** The {@code service.name} resource attribute, or {@code ""} when absent. */
    public String serviceName() {
        return attributes.getText("service.name", "");
    }
}
