/**
 * The archive's files in S3-compatible object storage: {@link io.nemolens.archive.s3.S3Store}, an
 * {@link io.nemolens.archive.store.ArchiveStore} over the AWS SDK for Java v2, and the settings of its client.
 */
@NullMarked
package io.nemolens.archive.s3;

import org.jspecify.annotations.NullMarked;
