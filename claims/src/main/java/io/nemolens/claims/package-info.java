/**
 * The archive's message claims on PostgreSQL: {@link io.nemolens.claims.PostgresClaims}, one table shared by the
 * instances that consume one queue, reached through plain JDBC on one connection.
 */
@NullMarked
package io.nemolens.claims;

import org.jspecify.annotations.NullMarked;
