package io.nemolens.handlers.record;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One sample of one GPU from dcgm-exporter, as the collector's {@code prometheus} receiver delivers it:
 * a metric point with its labels read into typed fields. Staleness markers never become samples.
 * Labels that are absent (the receiver drops labels with empty values) are {@code null}, never {@code ""}.
 *
 * @param metricName the metric name, e.g. {@code DCGM_FI_DEV_GPU_UTIL}
 * @param field the well-known field of that name, or {@link DcgmField#UNKNOWN}
 * @param gpu the {@code gpu} label (GPU index), or {@code null} when absent or not a number
 * @param uuid the {@code UUID} label ({@code uuid} with dcgm-exporter's old-namespace flag, {@code gpu_uuid} on NVLink metrics)
 * @param pciBusId the {@code pci_bus_id} label
 * @param device the {@code device} label, e.g. {@code nvidia0}
 * @param modelName the {@code modelName} label ({@code model_name} on NVLink metrics)
 * @param host the {@code Hostname} label (released dcgm-exporter) or {@code hostname} (newer builds); without either, the host of the scrape target ({@code service.instance.id} without port, else {@code server.address})
 * @param driverVersion the {@code DCGM_FI_DRIVER_VERSION} label
 * @param gpuInstanceProfile the MIG {@code GPU_I_PROFILE} label
 * @param gpuInstanceId the MIG {@code GPU_I_ID} label
 * @param pod the Kubernetes {@code pod} label (old: {@code pod_name})
 * @param namespace the Kubernetes {@code namespace} label (old: {@code pod_namespace})
 * @param container the Kubernetes {@code container} label (old: {@code container_name})
 * @param value the value (an integer point converted to double)
 * @param counter whether the metric is a monotonic sum (a Prometheus counter)
 * @param timeUnixNano when the sample was scraped
 * @param point the whole generic point, with the raw OTLP metric
 */
public record GpuSample(
        String metricName,
        DcgmField field,
        @Nullable Integer gpu,
        @Nullable String uuid,
        @Nullable String pciBusId,
        @Nullable String device,
        @Nullable String modelName,
        @Nullable String host,
        @Nullable String driverVersion,
        @Nullable String gpuInstanceProfile,
        @Nullable String gpuInstanceId,
        @Nullable String pod,
        @Nullable String namespace,
        @Nullable String container,
        double value,
        boolean counter,
        long timeUnixNano,
        MetricPoint point)
        implements ScrapedSample {

    public GpuSample {
        Objects.requireNonNull(metricName, "metricName");
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(point, "point");
    }

    /** Whether the sample is of a MIG instance. */
    public boolean mig() {
        return gpuInstanceId != null;
    }
}
