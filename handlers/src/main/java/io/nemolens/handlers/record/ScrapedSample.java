package io.nemolens.handlers.record;

/**
 * A typed sample made from one metric point scraped by the collector's {@code prometheus} receiver
 * ({@link GpuSample}, {@link NodeSample}): its resource, scope and labels are those of the point.
 */
public interface ScrapedSample extends TelemetryRecord {

    /** The generic metric point the sample was made from. */
    MetricPoint point();

    /** The scrape target's resource ({@code service.name} = scrape job). */
    @Override
    default ResourceInfo resource() {
        return point().resource();
    }

    @Override
    default ScopeInfo scope() {
        return point().scope();
    }

    /** All labels of the sample, as the receiver delivered them. */
    @Override
    default Attributes attributes() {
        return point().attributes();
    }
}
