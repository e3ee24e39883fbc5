package io.nemolens.generator;

import com.google.protobuf.ByteString;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import java.util.SplittableRandom;

/** Small builders of OTLP protobuf values, for generators and test data. */
public final class Otlp {

    private Otlp() {}

    /** A string attribute. */
    public static KeyValue kv(String key, String value) {
        return kv(key, AnyValue.newBuilder().setStringValue(value).build());
    }

    /** An integer attribute. */
    public static KeyValue kv(String key, long value) {
        return kv(key, AnyValue.newBuilder().setIntValue(value).build());
    }

    /** A double attribute. */
    public static KeyValue kv(String key, double value) {
        return kv(key, AnyValue.newBuilder().setDoubleValue(value).build());
    }

    /** A boolean attribute. */
    public static KeyValue kv(String key, boolean value) {
        return kv(key, AnyValue.newBuilder().setBoolValue(value).build());
    }

    /** An attribute of any value. */
    public static KeyValue kv(String key, AnyValue value) {
        return KeyValue.newBuilder().setKey(key).setValue(value).build();
    }

    /** A random non-zero id of {@code size} bytes (16 for a trace id, 8 for a span id). */
    public static ByteString randomId(SplittableRandom random, int size) {
        byte[] id = new byte[size];
        do {
            for (int i = 0; i < size; i++) {
                id[i] = (byte) random.nextInt(256);
            }
        } while (isZero(id));
        return ByteString.copyFrom(id);
    }

    private static boolean isZero(byte[] id) {
        for (byte b : id) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }
}
