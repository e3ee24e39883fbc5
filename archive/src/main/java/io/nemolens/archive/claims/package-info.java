/** The claims that keep one message's rows out of two instances' files: {@link io.nemolens.archive.claims.MessageClaims}. */
@NullMarked
package io.nemolens.archive.claims;

import org.jspecify.annotations.NullMarked;
