package io.nemolens.handlers.record;

/**
 * What every record handed to a handler has: the resource and scope it came from and the run it
 * belongs to.
 */
public interface TelemetryRecord {

    /** The resource (process or scrape target) that produced the record. */
    ResourceInfo resource();

    /** The instrumentation scope the record was produced under. */
    ScopeInfo scope();

    /** The record's own attributes. */
    Attributes attributes();

    /**
     * The NeMo Lens run this record belongs to: the {@code nemo.run.id} resource attribute, else the
     * record's own {@code nemo.run.id} attribute, else {@code ""}.
     */
    default String runId() {
        String fromResource = resource().runId();
        return fromResource.isEmpty() ? attributes().getText(ResourceInfo.RUN_ID, "") : fromResource;
    }
}
