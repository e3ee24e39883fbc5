/**
 * The direct reader of protobuf: a trace request's spans straight from its bytes, without protobuf-java's object
 * tree, the common case only; anything else it leaves to the reference reader, which it never uses.
 */
@NullMarked
package io.nemolens.decode.direct.protobuf;

import org.jspecify.annotations.NullMarked;
