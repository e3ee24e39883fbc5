package io.nemolens.handlers.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A GPU sample made by hand: read from its point as the decoder reads it, labels absent unless set. */
class GpuSampleTest {

    private static final MetricPoint UTIL = MetricPoint.builder()
            .metric(new MetricInfo("DCGM_FI_DEV_GPU_UTIL", "", "", MetricType.GAUGE, false, 0, Attributes.empty()))
            .timeUnixNano(1_000)
            .value(NumberValue.ofLong(97))
            .build();

    @Test
    void theBuilderReadsThePointAndLeavesLabelsAbsent() {
        GpuSample sample = GpuSample.builder(UTIL).build();

        assertThat(sample.metricName()).isEqualTo("DCGM_FI_DEV_GPU_UTIL");
        assertThat(sample.field()).isEqualTo(DcgmField.forMetricName("DCGM_FI_DEV_GPU_UTIL"));
        assertThat(sample.field()).isNotEqualTo(DcgmField.UNKNOWN);
        assertThat(sample.value()).isEqualTo(97.0);
        assertThat(sample.counter()).isFalse();
        assertThat(sample.timeUnixNano()).isEqualTo(1_000);
        assertThat(sample.point()).isSameAs(UTIL);
        assertThat(sample.gpu()).isNull();
        assertThat(sample.uuid()).isNull();
        assertThat(sample.host()).isNull();
        assertThat(sample.pod()).isNull();
        assertThat(sample.mig()).isFalse();
    }

    @Test
    void aMonotonicSumIsACounterAndAnUnknownNameHasNoField() {
        MetricPoint energy = MetricPoint.builder()
                .metric(new MetricInfo("DCGM_FI_CUSTOM", "", "", MetricType.SUM, true, 2, Attributes.empty()))
                .value(NumberValue.ofDouble(1.5))
                .build();
        GpuSample sample = GpuSample.builder(energy).build();
        assertThat(sample.counter()).isTrue();
        assertThat(sample.field()).isEqualTo(DcgmField.UNKNOWN);
    }

    @Test
    void theRoundTripEqualsTheConstructor() {
        GpuSample built = GpuSample.builder(UTIL)
                .metricName("DCGM_FI_DEV_GPU_UTIL")
                .field(DcgmField.UNKNOWN)
                .gpu(3)
                .uuid("GPU-6a1f")
                .pciBusId("00000000:3B:00.0")
                .device("nvidia3")
                .modelName("NVIDIA H100 80GB HBM3")
                .host("dgx-07")
                .driverVersion("550.54.15")
                .migInstance("1g.10gb", "7")
                .kubernetes("trainer-0", "nemo", "megatron")
                .value(12.5)
                .counter(true)
                .timeUnixNano(9)
                .build();

        assertThat(built.mig()).isTrue();
        assertThat(built)
                .isEqualTo(new GpuSample(
                        "DCGM_FI_DEV_GPU_UTIL",
                        DcgmField.UNKNOWN,
                        3,
                        "GPU-6a1f",
                        "00000000:3B:00.0",
                        "nvidia3",
                        "NVIDIA H100 80GB HBM3",
                        "dgx-07",
                        "550.54.15",
                        "1g.10gb",
                        "7",
                        "trainer-0",
                        "nemo",
                        "megatron",
                        12.5,
                        true,
                        9,
                        UTIL));
    }

    @Test
    void thePointIsRequired() {
        assertThatThrownBy(() -> GpuSample.builder(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("point");
    }
}
