package io.nemolens.consumer.decode.proto;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.nemolens.consumer.testdata.NemoLensTelemetry;
import io.nemolens.handlers.record.Ids;
import io.nemolens.handlers.record.Span;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ProtoRecordMapperTest {

    @Test
    void hexMatchesIds() {
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 1000; i++) {
            byte[] id = new byte[random.nextInt(3) == 0 ? 8 : 16];
            for (int j = 0; j < id.length; j++) {
                id[j] = (byte) random.nextInt(256);
            }
            assertThat(ProtoRecordMapper.hex(ByteString.copyFrom(id))).isEqualTo(Ids.toHex(id));
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
            assertThat(span.traceId())
                    .isEqualTo(Ids.toHex(span.raw().getTraceId().toByteArray()));
            assertThat(span.spanId()).isEqualTo(Ids.toHex(span.raw().getSpanId().toByteArray()));
            assertThat(span.parentSpanId())
                    .isEqualTo(Ids.toHex(span.raw().getParentSpanId().toByteArray()));
        });
    }
}
