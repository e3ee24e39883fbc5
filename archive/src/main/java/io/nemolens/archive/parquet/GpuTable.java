package io.nemolens.archive.parquet;

import io.nemolens.handlers.RecordKind;
import io.nemolens.handlers.record.GpuSample;

/** The {@code gpu_metrics} table: one row per dcgm-exporter sample. */
final class GpuTable extends SampleTable<GpuSample> {

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

    GpuTable(Shape shape) {
        super(RecordKind.GPU_SAMPLES, "gpu_metrics", """
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
                """, shape);
    }

    @Override
    void writeOwn(RowWriter w, GpuSample s) {
        writeMetricName(w, s.metricName());
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
        writeSample(w, s.value(), s.counter(), s.timeUnixNano());
    }
}
