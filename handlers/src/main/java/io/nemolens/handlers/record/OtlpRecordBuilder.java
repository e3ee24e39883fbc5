package io.nemolens.handlers.record;

import com.google.protobuf.ByteString;
import java.util.HexFormat;

/**
 * What the builders of {@link Span}, {@link LogEntry} and {@link MetricPoint} share: attributes, flags, resource
 * and scope, with OTLP's defaults (none, 0, {@link ResourceInfo#EMPTY}, {@link ScopeInfo#EMPTY}). Users see these
 * setters on each record's own {@code Builder}, returning that builder.
 *
 * @param <B> the record's builder
 */
abstract class OtlpRecordBuilder<B extends OtlpRecordBuilder<B>> {
    Attributes attributes = Attributes.empty();
    int flags;
    ResourceInfo resource = ResourceInfo.EMPTY;
    ScopeInfo scope = ScopeInfo.EMPTY;

    OtlpRecordBuilder() {}

    /** This builder, as its own type. */
    abstract B self();

    public B attributes(Attributes attributes) {
        this.attributes = attributes;
        return self();
    }

    /**
     * The record's OTLP flags: W3C trace flags in the low byte of a span's or log record's, and in a metric point's
     * {@link MetricPoint#FLAG_NO_RECORDED_VALUE} for a staleness marker.
     */
    public B flags(int flags) {
        this.flags = flags;
        return self();
    }

    public B resource(ResourceInfo resource) {
        this.resource = resource;
        return self();
    }

    public B scope(ScopeInfo scope) {
        this.scope = scope;
        return self();
    }

    /** A lowercase hex id ({@code ""} for none) as OTLP's bytes. */
    static ByteString idBytes(String hex) {
        return ByteString.copyFrom(HexFormat.of().parseHex(hex));
    }
}
