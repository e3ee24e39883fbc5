package io.nemolens.archive.parquet;

import io.nemolens.handlers.record.GpuSample;

/** The {@code gpu_metrics} table: one row per dcgm-exporter sample (staleness markers never arrive). */
final class GpuTable extends ArchiveTable<GpuSample> {

    private final int metricName = index("metric_name");
    private final int field = index("field");
    private final int gpu = index("gpu");
    private final int uuid = index("uuid");
    private final int pciBusId = index("pci_bus_id");
    private final int device = index("device");
    private final int modelName = index("model_name");
    private final int host = index("host");
    private final int driverVersion = index("driver_version");
    private final int gpuInstanceProfile = index("gpu_instance_profile");
    private final int gpuInstanceId = index("gpu_instance_id");
    private final int pod = index("pod");
    private final int namespace = index("namespace");
    private final int container = index("container");
    private final int value = index("value");
    private final int counter = index("is_counter");
    private final int time = index("time_unix_nano");

    GpuTable() {
        super("gpu_metrics", """
                  required binary metric_name (STRING);
                  required binary field (STRING);
                  optional int32 gpu;
                  optional binary uuid (STRING);
                  optional binary pci_bus_id (STRING);
                  optional binary device (STRING);
                  optional binary model_name (STRING);
                  optional binary host (STRING);
                  optional binary driver_version (STRING);
                  optional binary gpu_instance_profile (STRING);
                  optional binary gpu_instance_id (STRING);
                  optional binary pod (STRING);
                  optional binary namespace (STRING);
                  optional binary container (STRING);
                  required double value;
                  required boolean is_counter;
                  required int64 time_unix_nano;
                """);
    }

    @Override
    long timeUnixNano(GpuSample sample) {
        return sample.timeUnixNano();
    }

    @Override
    int droppedAttributesCount(GpuSample sample) {
        return 0;
    }

    @Override
    void writeOwn(RowWriter w, GpuSample s) {
        w.repeatedString("metric_name", metricName, s.metricName());
        w.repeatedString("field", field, s.field().name());
        if (s.gpu() != null) {
            w.int32("gpu", gpu, s.gpu());
        }
        w.optionalRepeatedString("uuid", uuid, s.uuid());
        w.optionalRepeatedString("pci_bus_id", pciBusId, s.pciBusId());
        w.optionalRepeatedString("device", device, s.device());
        w.optionalRepeatedString("model_name", modelName, s.modelName());
        w.optionalRepeatedString("host", host, s.host());
        w.optionalRepeatedString("driver_version", driverVersion, s.driverVersion());
        w.optionalRepeatedString("gpu_instance_profile", gpuInstanceProfile, s.gpuInstanceProfile());
        w.optionalRepeatedString("gpu_instance_id", gpuInstanceId, s.gpuInstanceId());
        w.optionalRepeatedString("pod", pod, s.pod());
        w.optionalRepeatedString("namespace", namespace, s.namespace());
        w.optionalRepeatedString("container", container, s.container());
        w.float64("value", value, s.value());
        w.bool("is_counter", counter, s.counter());
        w.int64("time_unix_nano", time, s.timeUnixNano());
    }
}
