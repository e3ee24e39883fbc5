/**
 * The reference reader of OTLP/JSON: whole requests of any signal into their protobuf messages, field by field from
 * Jackson's tokens, each message's fields declared once in a field table. Never uses the direct readers.
 */
@NullMarked
package io.nemolens.decode.reference.json;

import org.jspecify.annotations.NullMarked;
