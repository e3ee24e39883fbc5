package io.nemolens.runwatch;

import org.jspecify.annotations.Nullable;

/**
 * The fields of the DCGM and node-exporter scrapes the watch keeps as evidence, under the names the
 * exporters give them. GPU fields are the latest value of each GPU; host fields are counters, kept as their
 * increase per second between a host's last two scrapes (summed over devices and ports).
 */
public enum ScrapedField {
    /** SM clock, MHz: lower than the run's other GPUs' when the GPU throttles. */
    SM_CLOCK("DCGM_FI_DEV_SM_CLOCK", "MHz", true),
    /**
     * Why the clocks are below their maximum (NVML's bits: 0x8 HW slowdown, 0x20 SW thermal, 0x40 HW thermal,
     * 0x80 HW power brake, among others); newer dcgm-exporters name it {@code DCGM_FI_DEV_CLOCKS_EVENT_REASONS}.
     */
    CLOCK_THROTTLE_REASONS("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "", true),
    /** GPU temperature, °C. */
    GPU_TEMP("DCGM_FI_DEV_GPU_TEMP", "°C", true),
    /** Power draw, W. */
    POWER_USAGE("DCGM_FI_DEV_POWER_USAGE", "W", true),
    /** GPU utilization, %. */
    GPU_UTIL("DCGM_FI_DEV_GPU_UTIL", "%", true),
    /** The last XID error's number (0: none). */
    XID_ERRORS("DCGM_FI_DEV_XID_ERRORS", "", true),
    /** TCP segments retransmitted, per second. */
    TCP_RETRANSMITS("node_netstat_Tcp_RetransSegs", "/s", false),
    /** InfiniBand packets received with errors, per second, over the host's ports. */
    INFINIBAND_RECEIVE_ERRORS("node_infiniband_port_errors_received_total", "/s", false),
    /** InfiniBand symbol errors, per second, over the host's ports. */
    INFINIBAND_SYMBOL_ERRORS("node_infiniband_symbol_error_total", "/s", false),
    /** InfiniBand links that went down, per second, over the host's ports. */
    INFINIBAND_LINK_DOWNED("node_infiniband_link_downed_total", "/s", false),
    /** Network receive errors, per second, over the host's devices. */
    NETWORK_RECEIVE_ERRORS("node_network_receive_errs_total", "/s", false),
    /** Network transmit errors, per second, over the host's devices. */
    NETWORK_TRANSMIT_ERRORS("node_network_transmit_errs_total", "/s", false);

    /** NVML's clock event reasons that say the GPU was slowed down (not idle, not capped by a setting). */
    public static final long SLOWDOWN_REASONS = 0x8 | 0x20 | 0x40 | 0x80;

    private static final ScrapedField[] VALUES = values();
    private static final String CLOCKS_EVENT_REASONS = "DCGM_FI_DEV_CLOCKS_EVENT_REASONS";

    private final String metricName;
    private final String unit;
    private final boolean perGpu;

    ScrapedField(String metricName, String unit, boolean perGpu) {
        this.metricName = metricName;
        this.unit = unit;
        this.perGpu = perGpu;
    }

    /** The exporter's metric name. */
    public String metricName() {
        return metricName;
    }

    /** The unit of the values shown ({@code /s} for a host's counters). */
    public String unit() {
        return unit;
    }

    /** Whether it is a GPU's (DCGM) rather than a host's (node-exporter). */
    public boolean perGpu() {
        return perGpu;
    }

    /** The field a scraped metric is, or {@code null} when the watch does not keep it. */
    static @Nullable ScrapedField ofMetricName(String name) {
        if (name.equals(CLOCKS_EVENT_REASONS)) {
            return CLOCK_THROTTLE_REASONS;
        }
        for (ScrapedField field : VALUES) {
            if (field.metricName.equals(name)) {
                return field;
            }
        }
        return null;
    }

    /** NVML's names of the clock event reasons set in a {@link #CLOCK_THROTTLE_REASONS} value. */
    public static String reasons(long bits) {
        if (bits == 0) {
            return "none";
        }
        StringBuilder s = new StringBuilder();
        String[] names = {
            "GPU idle",
            "applications clocks setting",
            "SW power cap",
            "HW slowdown",
            "sync boost",
            "SW thermal slowdown",
            "HW thermal slowdown",
            "HW power brake slowdown",
            "display clock setting"
        };
        for (int bit = 0; bit < names.length; bit++) {
            if ((bits & (1L << bit)) != 0) {
                s.append(s.length() == 0 ? "" : ", ").append(names[bit]);
            }
        }
        long unknown = bits & ~((1L << names.length) - 1);
        if (unknown != 0) {
            s.append(s.length() == 0 ? "" : ", ").append("0x").append(Long.toHexString(unknown));
        }
        return s.toString();
    }
}
