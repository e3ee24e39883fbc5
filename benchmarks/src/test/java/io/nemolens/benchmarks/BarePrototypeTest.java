package io.nemolens.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.ArrayValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.common.v1.KeyValueList;
import org.junit.jupiter.api.Test;

/** The bare prototype's attribute strings and the figures of its runs. */
class BarePrototypeTest {

    @Test
    void attributeValuesBecomeStrings() {
        assertThat(BarePrototype.text(
                        AnyValue.newBuilder().setStringValue("a b").build()))
                .isEqualTo("a b");
        assertThat(BarePrototype.text(AnyValue.newBuilder().setIntValue(-7).build()))
                .isEqualTo("-7");
        assertThat(BarePrototype.text(AnyValue.newBuilder().setDoubleValue(0.5).build()))
                .isEqualTo("0.5");
        assertThat(BarePrototype.text(AnyValue.newBuilder().setBoolValue(true).build()))
                .isEqualTo("true");
        assertThat(BarePrototype.text(AnyValue.newBuilder()
                        .setBytesValue(ByteString.copyFrom(new byte[] {0x0a, (byte) 0xff}))
                        .build()))
                .isEqualTo("0aff");
        AnyValue one = AnyValue.newBuilder().setIntValue(1).build();
        assertThat(BarePrototype.text(AnyValue.newBuilder()
                        .setArrayValue(ArrayValue.newBuilder().addValues(one).addValues(one))
                        .build()))
                .isEqualTo("[1,1]");
        assertThat(BarePrototype.text(AnyValue.newBuilder()
                        .setKvlistValue(KeyValueList.newBuilder()
                                .addValues(KeyValue.newBuilder().setKey("k").setValue(one)))
                        .build()))
                .isEqualTo("{k=1}");
        assertThat(BarePrototype.text(AnyValue.getDefaultInstance())).isEmpty();
    }

    @Test
    void percentilesAreNearestRankAndTheMedianFileIsTheMiddle() {
        long[] ms = new long[100];
        for (int i = 0; i < ms.length; i++) {
            ms[i] = (i + 1) * 1_000_000L;
        }
        BarePrototype.Result r = new BarePrototype.Result(100, 1000, 2.0, ms, 0, 0, new long[] {10, 30});
        assertThat(r.ackPercentileMillis(0.5)).isEqualTo(50.0);
        assertThat(r.ackPercentileMillis(0.99)).isEqualTo(99.0);
        assertThat(r.spansPerSecond()).isEqualTo(500.0);
        assertThat(r.medianFileBytes()).isEqualTo(20.0);
        assertThat(r.bytes()).isEqualTo(40);
    }
}
