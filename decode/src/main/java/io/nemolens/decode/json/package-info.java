/** A streaming OTLP/JSON reader that builds the protobuf request field by field, as OTLP/JSON specifies it. */
package io.nemolens.decode.json;
