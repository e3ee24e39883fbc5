/** Binary OTLP parsing, and the one mapper from OTLP requests to handler records that both encodings share. */
package io.nemolens.decode.proto;
