package io.nemolens.archive.s3.autoconfigure;

import io.nemolens.archive.s3.Checksums;
import io.nemolens.archive.s3.S3ClientSettings;
import io.nemolens.archive.s3.S3Location;
import io.nemolens.archive.s3.S3Store;
import jakarta.validation.constraints.NotNull;
import java.net.URI;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;
import org.springframework.validation.annotation.Validated;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * Where the archive's committed files go ({@code lens.archive.store.*}): the local archive folder unless
 * {@code uri} names a bucket. Credentials come from the AWS SDK's default chain (environment, profile, web
 * identity, container and instance roles) unless both keys are set here.
 *
 * @param uri {@code s3://bucket/prefix} (or {@code s3://bucket}); empty: the local archive folder
 * @param endpoint the object store's endpoint (MinIO, Ceph, ...); empty for AWS S3
 * @param region the region; empty: {@code us-east-1} with an endpoint, else the SDK's region chain
 *     ({@code AWS_REGION}, the profile, the instance's metadata)
 * @param pathStyleAccess {@code https://host/bucket/key} instead of {@code https://bucket.host/key}, as most
 *     stores other than AWS S3 need
 * @param checksums when checksums are sent and checked: {@code when-required} works with every store,
 *     {@code when-supported} (the SDK's default) needs one that knows the newest AWS checksum headers
 * @param partSize the size of a part of a multipart upload, at least 8MB
 * @param multipartThreshold files of this size and larger are uploaded in parts, at most 5GB
 * @param accessKeyId a fixed access key id, for a store without the default chain (with
 *     {@code secret-access-key})
 * @param secretAccessKey its secret (never logged or shown)
 */
@ConfigurationProperties("lens.archive.store")
@Validated
public record LensArchiveS3Properties(
        @Nullable String uri,
        @Nullable URI endpoint,
        @Nullable String region,
        @DefaultValue("false") boolean pathStyleAccess,
        @DefaultValue("when-required") @NotNull Checksums checksums,
        @DefaultValue("16MB") @NotNull DataSize partSize,
        @DefaultValue("16MB") @NotNull DataSize multipartThreshold,
        @Nullable String accessKeyId,
        @Nullable String secretAccessKey) {

    private static final String PREFIX = "lens.archive.store.";

    public LensArchiveS3Properties {
        if (uri != null && !uri.isBlank()) {
            try {
                S3Location.parse(uri);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(PREFIX + "uri: " + e.getMessage(), e);
            }
        }
        if (endpoint != null) {
            try {
                S3ClientSettings.checkEndpoint(endpoint);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(PREFIX + "endpoint: " + e.getMessage(), e);
            }
        }
        if (partSize != null && partSize.toBytes() < S3Store.MIN_PART_SIZE) {
            throw new IllegalArgumentException(PREFIX + "part-size: " + partSize + " is less than 8MB");
        }
        if (partSize != null && partSize.toBytes() > 5L << 30) {
            throw new IllegalArgumentException(PREFIX + "part-size: " + partSize + " is more than 5GB");
        }
        if (multipartThreshold != null
                && (multipartThreshold.toBytes() < 1 || multipartThreshold.toBytes() > 5L << 30)) {
            throw new IllegalArgumentException(
                    PREFIX + "multipart-threshold: " + multipartThreshold + " is not 1B to 5GB");
        }
        if (hasText(accessKeyId) != hasText(secretAccessKey)) {
            throw new IllegalArgumentException(PREFIX + "access-key-id and " + PREFIX
                    + "secret-access-key: set both, or neither (the SDK's" + " default credentials chain)");
        }
    }

    /**
     * The bucket and prefix.
     *
     * @throws IllegalStateException without {@code uri}
     */
    public S3Location location() {
        if (uri == null || uri.isBlank()) {
            throw new IllegalStateException(PREFIX + "uri is not set");
        }
        return S3Location.parse(uri);
    }

    /** The client's settings. */
    public S3ClientSettings clientSettings() {
        return new S3ClientSettings(
                endpoint,
                region,
                pathStyleAccess,
                checksums,
                accessKeyId != null && secretAccessKey != null && hasText(accessKeyId)
                        ? StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKeyId, secretAccessKey))
                        : null);
    }

    private static boolean hasText(@Nullable String s) {
        return s != null && !s.isBlank();
    }

    /** The settings, the secret masked. */
    @Override
    public String toString() {
        return "LensArchiveS3Properties[uri=" + uri
                + ", endpoint=" + endpoint
                + ", region=" + region
                + ", pathStyleAccess=" + pathStyleAccess
                + ", checksums=" + checksums
                + ", partSize=" + partSize
                + ", multipartThreshold=" + multipartThreshold
                + ", accessKeyId=" + accessKeyId
                + ", secretAccessKey=" + (hasText(secretAccessKey) ? "******" : "") + "]";
    }
}
