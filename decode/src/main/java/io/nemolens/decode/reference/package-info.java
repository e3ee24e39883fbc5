/**
 * The reference reader: a whole request, parsed into protobuf-java's messages (protobuf-java itself for protobuf,
 * {@code reference.json} for OTLP/JSON), then mapped to records by one mapper, so both encodings decode to equal
 * records by construction. It reads every body the module accepts and says what is wrong with every body it refuses;
 * the direct readers ({@code io.nemolens.decode.direct}) are measured against it. Never uses the direct readers.
 */
@NullMarked
package io.nemolens.decode.reference;

import org.jspecify.annotations.NullMarked;
