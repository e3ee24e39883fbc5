/**
 * Decoding OTLP message bodies into records, the module's public face: {@link io.nemolens.decode.OtlpDecoder} picks
 * the encoding (content type, else detection), tries the direct reader of spans ({@code direct.protobuf},
 * {@code direct.json}: the common case straight from the bytes) and reads anything else the reference way (the whole
 * request as protobuf-java's messages, by {@link io.nemolens.decode.ProtobufRequests} or
 * {@link io.nemolens.decode.OtlpJsonReader} over {@code reference.json}, then the one mapping in {@code reference}),
 * so both encodings decode to equal records; message ids, the metric points' classifier. The sub-packages never use
 * the root: the direct and the reference readers share only {@code records}.
 */
@NullMarked
package io.nemolens.decode;

import org.jspecify.annotations.NullMarked;
