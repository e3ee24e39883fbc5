package io.nemolens.decode.reference;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.nemolens.generator.NemoLensTelemetry;
import io.nemolens.handlers.record.Span;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.util.HexFormat;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ProtoRecordMapperTest {

    /** The records' id rendering, the slow obvious way: lowercase hex, {@code ""} for an empty or all-zero id. */
    private static String hexOf(byte[] id) {
        for (byte b : id) {
            if (b != 0) {
                return HexFormat.of().formatHex(id);
            }
        }
        return "";
    }

    @Test
    void hexIsLowercaseAndEmptyForZeroIds() {
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 1000; i++) {
            byte[] id = new byte[random.nextInt(3) == 0 ? 8 : 16];
            for (int j = 0; j < id.length; j++) {
                id[j] = (byte) random.nextInt(256);
            }
            assertThat(ProtoRecordMapper.hex(ByteString.copyFrom(id))).isEqualTo(hexOf(id));
        }
        assertThat(ProtoRecordMapper.hex(ByteString.EMPTY)).isEmpty();
        assertThat(ProtoRecordMapper.hex(ByteString.copyFrom(new byte[16]))).isEmpty();
        assertThat(ProtoRecordMapper.hex(ByteString.copyFrom(new byte[] {0, 0, 0, 0, 0, 0, 0, 1})))
                .isEqualTo("0000000000000001");
    }

    @Test
    void everySpanIdIsTheHexOfItsRawBytes() {
        var request = ExportTraceServiceRequest.newBuilder()
                .addAllResourceSpans(NemoLensTelemetry.spansRequest(1024).getResourceSpansList())
                .addAllResourceSpans(NemoLensTelemetry.traces().getResourceSpansList())
                .build();
        List<Span> spans = ProtoRecordMapper.spans(request);

        assertThat(spans).hasSize(1029).allSatisfy(span -> {
            assertThat(span.traceId()).isEqualTo(hexOf(span.raw().getTraceId().toByteArray()));
            assertThat(span.spanId()).isEqualTo(hexOf(span.raw().getSpanId().toByteArray()));
            assertThat(span.parentSpanId())
                    .isEqualTo(hexOf(span.raw().getParentSpanId().toByteArray()));
        });
    }
}
