package io.nemolens.handlers;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.handlers.record.AnyValue;
import io.nemolens.handlers.record.Attributes;
import io.nemolens.handlers.record.GpuSample;
import io.nemolens.handlers.record.LogEntry;
import io.nemolens.handlers.record.MetricInfo;
import io.nemolens.handlers.record.MetricPoint;
import io.nemolens.handlers.record.MetricType;
import io.nemolens.handlers.record.NodeSample;
import io.nemolens.handlers.record.NumberValue;
import io.nemolens.handlers.record.ResourceInfo;
import io.nemolens.handlers.record.ScopeInfo;
import io.nemolens.handlers.record.Span;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * The record builders as a user's code outside the SPI's packages calls them: the setters they share (declared
 * once, package-private) return each record's own builder, chain with its own setters, and work as method
 * references.
 */
class BuildersFromAnotherPackageTest {

    private static final Attributes ATTRIBUTES = Attributes.of("k", AnyValue.of("v"));
    private static final ResourceInfo RESOURCE =
            new ResourceInfo(Attributes.of("service.name", AnyValue.of("s")), 0, "");
    private static final ScopeInfo SCOPE = new ScopeInfo("scope", "1", Attributes.empty(), 0, "");

    @Test
    void theSharedSettersChainWithEachRecordsOwn() {
        Span span = Span.builder()
                .attributes(ATTRIBUTES)
                .flags(1)
                .resource(RESOURCE)
                .scope(SCOPE)
                .traceId("0af7651916cd43dd8448eb211c80319c")
                .spanId("b7ad6b7169203331")
                .name("x")
                .build();
        LogEntry log = LogEntry.builder()
                .resource(RESOURCE)
                .scope(SCOPE)
                .attributes(ATTRIBUTES)
                .flags(1)
                .eventName("e")
                .build();
        Function<Attributes, MetricPoint.Builder> withAttributes = MetricPoint.builder()::attributes;
        MetricPoint point = withAttributes
                .apply(ATTRIBUTES)
                .flags(MetricPoint.FLAG_NO_RECORDED_VALUE)
                .resource(RESOURCE)
                .scope(SCOPE)
                .metric(new MetricInfo("m", "", "", MetricType.GAUGE, false, 0, Attributes.empty()))
                .value(NumberValue.ofLong(3))
                .build();

        assertThat(span.attributes()).isEqualTo(ATTRIBUTES);
        assertThat(span.raw().getFlags()).isEqualTo(1);
        assertThat(span.resource()).isEqualTo(RESOURCE);
        assertThat(log.scope()).isEqualTo(SCOPE);
        assertThat(log.raw().getFlags()).isEqualTo(1);
        assertThat(point.noRecordedValue()).isTrue();
        assertThat(point.attributes()).isEqualTo(ATTRIBUTES);
    }

    @Test
    void theSampleSettersChainWithEachSamplesOwn() {
        MetricPoint point = MetricPoint.builder()
                .metric(new MetricInfo("DCGM_FI_DEV_GPU_UTIL", "", "", MetricType.GAUGE, false, 0, Attributes.empty()))
                .value(NumberValue.ofLong(97))
                .build();

        GpuSample gpu = GpuSample.builder(point)
                .host("h")
                .device("nvidia0")
                .value(1.0)
                .gpu(0)
                .build();
        Function<String, NodeSample.Builder> onHost = NodeSample.builder(point)::host;
        NodeSample node = onHost.apply("h").timeUnixNano(5).port("1").build();

        assertThat(gpu.host()).isEqualTo("h");
        assertThat(gpu.device()).isEqualTo("nvidia0");
        assertThat(gpu.value()).isEqualTo(1.0);
        assertThat(gpu.gpu()).isZero();
        assertThat(node.host()).isEqualTo("h");
        assertThat(node.timeUnixNano()).isEqualTo(5);
        assertThat(node.port()).isEqualTo("1");
    }
}
