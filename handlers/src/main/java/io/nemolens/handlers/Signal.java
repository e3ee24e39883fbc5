package io.nemolens.handlers;

import org.jspecify.annotations.Nullable;

/**
 * The three OTLP signals, each published by the collector under its own routing key. The archive's spool
 * stores the ordinal: add constants at the end only.
 */
public enum Signal {
    SPANS("otlp_spans"),
    METRICS("otlp_metrics"),
    LOGS("otlp_logs");

    private final String routingKey;

    Signal(String routingKey) {
        this.routingKey = routingKey;
    }

    /** The routing key the collector's {@code rabbitmq} exporter uses for this signal by default. */
    public String routingKey() {
        return routingKey;
    }

    /** The signal a default routing key names, or {@code null} for any other key. */
    public static @Nullable Signal forRoutingKey(String routingKey) {
        for (Signal s : values()) {
            if (s.routingKey.equals(routingKey)) {
                return s;
            }
        }
        return null;
    }

    /** Lower-case name for tags and headers ({@code spans}, {@code metrics}, {@code logs}). */
    public String tag() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
