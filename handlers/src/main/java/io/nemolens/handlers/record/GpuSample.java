package io.nemolens.handlers.record;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One sample of one GPU from dcgm-exporter, as the collector's {@code prometheus} receiver delivers it:
 * a metric point with its labels read into typed fields. Staleness markers never become samples.
 * Labels that are absent (the receiver drops labels with empty values) are {@code null}, never {@code ""}.
 * Make one by hand with {@link #builder(MetricPoint)}.
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

    /**
     * Every component, positionally: for the decoders, which build samples on the hot path. Anyone else, use
     * {@link #builder(MetricPoint)}.
     */
    public GpuSample {
        Objects.requireNonNull(metricName, "metricName");
        Objects.requireNonNull(field, "field");
        Objects.requireNonNull(point, "point");
    }

    /** A builder for samples made by hand (tests, examples, tools), of the given point. */
    public static Builder builder(MetricPoint point) {
        return new Builder(point);
    }

    /** Whether the sample is of a MIG instance. */
    public boolean mig() {
        return gpuInstanceId != null;
    }

    /**
     * Builds a {@link GpuSample} of a point, read as the decoder reads it by default: the point's metric name,
     * the {@link DcgmField} of that name ({@link DcgmField#UNKNOWN} for another), its time, its number as a double
     * (0 for a point that is not a gauge or sum or has no value), {@code counter} when its metric is a monotonic
     * sum; every label absent ({@code null}). Not thread-safe.
     */
    public static final class Builder extends ScrapedSampleBuilder<Builder> {
        private @Nullable DcgmField field;
        private @Nullable Integer gpu;
        private @Nullable String uuid;
        private @Nullable String pciBusId;
        private @Nullable String modelName;
        private @Nullable String driverVersion;
        private @Nullable String gpuInstanceProfile;
        private @Nullable String gpuInstanceId;
        private @Nullable String pod;
        private @Nullable String namespace;
        private @Nullable String container;

        private Builder(MetricPoint point) {
            super(point);
        }

        @Override
        Builder self() {
            return this;
        }

        /** The well-known field; by default the one of the metric name, {@link DcgmField#UNKNOWN} for another. */
        public Builder field(DcgmField field) {
            this.field = field;
            return this;
        }

        /** The {@code gpu} label: the GPU index. */
        public Builder gpu(int gpu) {
            this.gpu = gpu;
            return this;
        }

        /** The {@code UUID} label. */
        public Builder uuid(String uuid) {
            this.uuid = uuid;
            return this;
        }

        /** The {@code pci_bus_id} label. */
        public Builder pciBusId(String pciBusId) {
            this.pciBusId = pciBusId;
            return this;
        }

        /** The {@code modelName} label. */
        public Builder modelName(String modelName) {
            this.modelName = modelName;
            return this;
        }

        /** The {@code DCGM_FI_DRIVER_VERSION} label. */
        public Builder driverVersion(String driverVersion) {
            this.driverVersion = driverVersion;
            return this;
        }

        /** The MIG {@code GPU_I_PROFILE} and {@code GPU_I_ID} labels, for a sample of a MIG instance. */
        public Builder migInstance(String gpuInstanceProfile, String gpuInstanceId) {
            this.gpuInstanceProfile = gpuInstanceProfile;
            this.gpuInstanceId = gpuInstanceId;
            return this;
        }

        /** The Kubernetes {@code pod}, {@code namespace} and {@code container} labels. */
        public Builder kubernetes(String pod, String namespace, String container) {
            this.pod = pod;
            this.namespace = namespace;
            this.container = container;
            return this;
        }

        public GpuSample build() {
            DcgmField given = field;
            return new GpuSample(
                    metricName,
                    given != null ? given : DcgmField.forMetricName(metricName),
                    gpu,
                    uuid,
                    pciBusId,
                    device,
                    modelName,
                    host,
                    driverVersion,
                    gpuInstanceProfile,
                    gpuInstanceId,
                    pod,
                    namespace,
                    container,
                    value,
                    counter,
                    timeUnixNano,
                    point);
        }
    }
}
