/**
 * What every reader of spans shares, said once: the parts a record is made of (a span's, its events' and links', its
 * resource's and scope's) and their one construction, the shared strings and values, the nesting limits of both
 * encodings, and {@link io.nemolens.decode.records.NotCommon}, the signal that a body leaves a direct reader's common
 * case.
 */
@NullMarked
package io.nemolens.decode.records;

import org.jspecify.annotations.NullMarked;
