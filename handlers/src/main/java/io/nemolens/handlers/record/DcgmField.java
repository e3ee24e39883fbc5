package io.nemolens.handlers.record;

import java.util.HashMap;
import java.util.Map;

/**
 * The well-known dcgm-exporter fields (its {@code default-counters.csv} and common profiling fields), each
 * with its Prometheus metric name and whether dcgm-exporter exports it as a counter. Any other
 * {@code DCGM_FI_*} metric is {@link #UNKNOWN}.
 */
public enum DcgmField {
    GPU_UTIL("DCGM_FI_DEV_GPU_UTIL", false),
    MEM_COPY_UTIL("DCGM_FI_DEV_MEM_COPY_UTIL", false),
    ENC_UTIL("DCGM_FI_DEV_ENC_UTIL", false),
    DEC_UTIL("DCGM_FI_DEV_DEC_UTIL", false),
    FB_USED("DCGM_FI_DEV_FB_USED", false),
    FB_FREE("DCGM_FI_DEV_FB_FREE", false),
    FB_RESERVED("DCGM_FI_DEV_FB_RESERVED", false),
    GPU_TEMP("DCGM_FI_DEV_GPU_TEMP", false),
    MEMORY_TEMP("DCGM_FI_DEV_MEMORY_TEMP", false),
    POWER_USAGE("DCGM_FI_DEV_POWER_USAGE", false),
    TOTAL_ENERGY_CONSUMPTION("DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", true),
    SM_CLOCK("DCGM_FI_DEV_SM_CLOCK", false),
    MEM_CLOCK("DCGM_FI_DEV_MEM_CLOCK", false),
    XID_ERRORS("DCGM_FI_DEV_XID_ERRORS", false),
    PCIE_REPLAY_COUNTER("DCGM_FI_DEV_PCIE_REPLAY_COUNTER", true),
    NVLINK_BANDWIDTH_TOTAL("DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL", true),
    CORRECTABLE_REMAPPED_ROWS("DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", true),
    UNCORRECTABLE_REMAPPED_ROWS("DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", true),
    ROW_REMAP_FAILURE("DCGM_FI_DEV_ROW_REMAP_FAILURE", false),
    VGPU_LICENSE_STATUS("DCGM_FI_DEV_VGPU_LICENSE_STATUS", false),
    PROF_GR_ENGINE_ACTIVE("DCGM_FI_PROF_GR_ENGINE_ACTIVE", false),
    PROF_PIPE_TENSOR_ACTIVE("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", false),
    PROF_DRAM_ACTIVE("DCGM_FI_PROF_DRAM_ACTIVE", false),
    /** Bytes per second, a rate (a gauge). */
    PROF_PCIE_TX_BYTES("DCGM_FI_PROF_PCIE_TX_BYTES", false),
    /** Bytes per second, a rate (a gauge). */
    PROF_PCIE_RX_BYTES("DCGM_FI_PROF_PCIE_RX_BYTES", false),
    /** A {@code DCGM_FI_*} metric not listed here. */
    UNKNOWN("", false);

    private static final Map<String, DcgmField> BY_NAME = new HashMap<>();

    static {
        for (DcgmField f : values()) {
            if (f != UNKNOWN) {
                BY_NAME.put(f.metricName, f);
            }
        }
    }

    private final String metricName;
    private final boolean counter;

    DcgmField(String metricName, boolean counter) {
        this.metricName = metricName;
        this.counter = counter;
    }

    /** The Prometheus metric name dcgm-exporter uses ({@code ""} for {@link #UNKNOWN}). */
    public String metricName() {
        return metricName;
    }

    /** Whether dcgm-exporter exports the field as a counter (a monotonic sum once scraped). */
    public boolean counter() {
        return counter;
    }

    /** The field of a metric name, or {@link #UNKNOWN}. */
    public static DcgmField forMetricName(String name) {
        return BY_NAME.getOrDefault(name, UNKNOWN);
    }
}
