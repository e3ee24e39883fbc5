/**
 * The direct reader of OTLP/JSON: a trace request's spans straight from the body's bytes (its own tokenizer, number
 * parsing and attribute reader), the common case only; anything else it leaves to the reference reader, which it
 * never uses.
 */
@NullMarked
package io.nemolens.decode.direct.json;

import org.jspecify.annotations.NullMarked;
