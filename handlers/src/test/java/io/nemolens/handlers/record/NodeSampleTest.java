package io.nemolens.handlers.record;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A node sample made by hand: read from its point as the decoder reads it, labels absent unless set. */
class NodeSampleTest {

    private static final MetricPoint RECEIVED = MetricPoint.builder()
            .metric(new MetricInfo(
                    "node_infiniband_port_data_received_bytes_total",
                    "",
                    "",
                    MetricType.SUM,
                    true,
                    2,
                    Attributes.empty()))
            .timeUnixNano(1_000)
            .value(NumberValue.ofDouble(4.0e9))
            .build();

    @Test
    void theBuilderReadsThePointAndLeavesLabelsAbsent() {
        NodeSample sample = NodeSample.builder(RECEIVED).build();

        assertThat(sample.metricName()).isEqualTo("node_infiniband_port_data_received_bytes_total");
        assertThat(sample.subsystem()).isEqualTo(NodeSubsystem.INFINIBAND);
        assertThat(sample.value()).isEqualTo(4.0e9);
        assertThat(sample.counter()).isTrue();
        assertThat(sample.timeUnixNano()).isEqualTo(1_000);
        assertThat(sample.point()).isSameAs(RECEIVED);
        assertThat(sample.device()).isNull();
        assertThat(sample.port()).isNull();
        assertThat(sample.host()).isNull();
    }

    @Test
    void aPointWithoutANumberReadsAsZero() {
        MetricPoint stale = MetricPoint.builder()
                .metric(new MetricInfo("node_load1", "", "", MetricType.GAUGE, false, 0, Attributes.empty()))
                .value(NumberValue.NONE)
                .build();
        NodeSample sample = NodeSample.builder(stale).build();
        assertThat(sample.value()).isZero();
        assertThat(sample.counter()).isFalse();
        assertThat(sample.subsystem()).isEqualTo(NodeSubsystem.OTHER);
    }

    @Test
    void theRoundTripEqualsTheConstructor() {
        NodeSample built = NodeSample.builder(RECEIVED)
                .metricName("node_network_receive_bytes_total")
                .subsystem(NodeSubsystem.NETWORK)
                .device("mlx5_0")
                .port("1")
                .host("dgx-07")
                .value(2.0)
                .counter(false)
                .timeUnixNano(9)
                .build();

        assertThat(built)
                .isEqualTo(new NodeSample(
                        "node_network_receive_bytes_total",
                        NodeSubsystem.NETWORK,
                        "mlx5_0",
                        "1",
                        "dgx-07",
                        2.0,
                        false,
                        9,
                        RECEIVED));
    }

    @Test
    void thePointIsRequired() {
        assertThatThrownBy(() -> NodeSample.builder(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessage("point");
    }
}
