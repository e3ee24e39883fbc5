/** The Spring glue of the PostgreSQL message claims ({@code lens.archive.claims.*}), off unless enabled. */
@NullMarked
package io.nemolens.claims.autoconfigure;

import org.jspecify.annotations.NullMarked;
