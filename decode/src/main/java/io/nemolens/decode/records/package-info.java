/**
 * What every reader of spans shares, said once, and the one package the direct and the reference readers both use:
 * the parts a record is made of (a span's, its events' and links', its resource's and scope's) and their one
 * construction, the shared strings and values, the nesting limits of both encodings, OTLP/JSON's base64 rule
 * ({@link io.nemolens.decode.records.JsonBase64}), and {@link io.nemolens.decode.records.NotCommon}, the signal that a
 * body leaves a direct reader's common case.
 */
@NullMarked
package io.nemolens.decode.records;

import org.jspecify.annotations.NullMarked;
