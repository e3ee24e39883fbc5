package io.nemolens.handlers;

/** How a message body was encoded. The archive's spool stores the ordinal: add constants at the end only. */
public enum Encoding {
    /** Binary OTLP protobuf, the collector's default. */
    PROTOBUF,
    /** OTLP/JSON (hex ids, integer enums, 64-bit integers as strings). */
    JSON;

    /** Lower-case name for tags and headers. */
    public String tag() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
