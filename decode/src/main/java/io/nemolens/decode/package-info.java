/**
 * Decoding OTLP message bodies into records, the module's public face: {@link io.nemolens.decode.OtlpDecoder} picks
 * the encoding (content type, else detection), reads spans straight from the body ({@code protobuf}, {@code json})
 * and anything else the reference way (the whole request, then one shared mapper), so both encodings decode to
 * equal records; message ids, the metric points' classifier.
 */
@NullMarked
package io.nemolens.decode;

import org.jspecify.annotations.NullMarked;
