/**
 * Decoding OTLP message bodies into records: {@link io.nemolens.decode.OtlpDecoder} picks the
 * encoding (content type, else detection), reads the request ({@code proto} or {@code json}) and maps
 * it to records with one shared mapper, so both encodings decode to equal records.
 */
@NullMarked
package io.nemolens.decode;

import org.jspecify.annotations.NullMarked;
