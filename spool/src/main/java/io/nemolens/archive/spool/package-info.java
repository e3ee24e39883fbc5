/**
 * A local, append-only, segmented log of opaque payloads with group commit: the archive acknowledges a
 * message once it is durable here, and builds big Parquet files from it later. Also
 * {@link io.nemolens.archive.spool.LockFile}, the lock file that keeps a second owner out of a folder (the
 * spool's, the de-duplication index's, an archive instance's).
 */
@NullMarked
package io.nemolens.archive.spool;

import org.jspecify.annotations.NullMarked;
