package io.nemolens.handlers.record;

/** The five OTLP metric data kinds. */
public enum MetricType {
    GAUGE,
    SUM,
    HISTOGRAM,
    EXPONENTIAL_HISTOGRAM,
    SUMMARY;

    /** The lower-case name used in the archive ({@code exponential_histogram}, ...). */
    public String archiveName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
