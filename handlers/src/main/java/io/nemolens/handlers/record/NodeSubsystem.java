package io.nemolens.handlers.record;

import java.util.Locale;

/** The node-exporter collector a {@code node_*} metric comes from, by its name prefix. */
public enum NodeSubsystem {
    /** {@code node_infiniband_*} (labels {@code device}, {@code port}). */
    INFINIBAND,
    /** {@code node_network_*} (label {@code device}). */
    NETWORK,
    /** {@code node_netstat_*}: untyped, so they arrive as gauges even when they count. */
    NETSTAT,
    /** {@code node_cpu_*}. */
    CPU,
    /** {@code node_memory_*}. */
    MEMORY,
    /** {@code node_disk_*}. */
    DISK,
    /** {@code node_filesystem_*}. */
    FILESYSTEM,
    /** Any other metric. */
    OTHER;

    /** The subsystem of a metric name: {@code node_<subsystem>_...}, else {@link #OTHER}. */
    public static NodeSubsystem forMetricName(String name) {
        for (NodeSubsystem s : values()) {
            if (s != OTHER && name.startsWith("node_" + s.name().toLowerCase(Locale.ROOT) + "_")) {
                return s;
            }
        }
        return OTHER;
    }
}
