/**
 * Reading OTLP/JSON: the streaming reader of whole requests by field tables, and the direct reader of a trace
 * request's spans.
 */
@NullMarked
package io.nemolens.decode.json;

import org.jspecify.annotations.NullMarked;
