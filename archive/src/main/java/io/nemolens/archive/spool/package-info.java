/**
 * A local, append-only, segmented log of opaque payloads with group commit: the archive acknowledges a
 * message once it is durable here, and builds big Parquet files from it later.
 */
@NullMarked
package io.nemolens.archive.spool;

import org.jspecify.annotations.NullMarked;
