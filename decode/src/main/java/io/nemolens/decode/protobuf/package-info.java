/** Reading the spans of a protobuf trace request straight from its bytes, without protobuf-java's object tree. */
@NullMarked
package io.nemolens.decode.protobuf;

import org.jspecify.annotations.NullMarked;
