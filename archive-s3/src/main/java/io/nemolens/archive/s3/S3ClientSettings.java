package io.nemolens.archive.s3;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;

/**
 * How to reach the object store: the settings of an {@link S3Client} for an {@link S3Store}. Its timeouts and
 * retries are modest on purpose: the archive retries a failed publication with backoff for as long as it
 * lasts, so an unreachable endpoint should fail a call within seconds (a refused connection at once, an
 * unanswered one after three attempts of {@link #CONNECT_TIMEOUT}), not hang it for minutes.
 *
 * @param endpoint the store's endpoint (MinIO, Ceph, s3proxy, ...); {@code null} for AWS S3 in the region
 * @param region the region; {@code null} for {@code us-east-1} with an endpoint, else the SDK's region chain
 *     ({@code AWS_REGION}, the profile, the instance's metadata)
 * @param pathStyleAccess {@code http://host/bucket/key} instead of {@code http://bucket.host/key}, as most
 *     stores other than AWS S3 need
 * @param checksums when checksums are sent and checked
 * @param credentials fixed credentials; {@code null} for the SDK's default chain (environment, system
 *     properties, profile, web identity, container and instance roles), which is to be preferred
 */
public record S3ClientSettings(
        @Nullable URI endpoint,
        @Nullable String region,
        boolean pathStyleAccess,
        Checksums checksums,
        @Nullable AwsCredentialsProvider credentials) {

    /** How long opening a connection may take. */
    public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

    /** How long a connection may stay silent while a request or response is under way. */
    public static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(30);

    /** How long one attempt of a call without a body to send may take (uploads get more: {@link S3Store}). */
    public static final Duration ATTEMPT_TIMEOUT = Duration.ofSeconds(60);

    /** Attempts of a call the SDK makes (the standard retry strategy) before it throws. */
    public static final int MAX_ATTEMPTS = 3;

    public S3ClientSettings {
        if (endpoint != null) {
            checkEndpoint(endpoint);
        }
        if (region != null && region.isBlank()) {
            region = null;
        }
    }

    /**
     * Checks an endpoint: an http or https URI with a host, without user information.
     *
     * @throws IllegalArgumentException saying what is wrong with it
     */
    public static void checkEndpoint(URI endpoint) {
        String scheme = endpoint.getScheme();
        if (!("http".equals(scheme) || "https".equals(scheme)) || endpoint.getHost() == null) {
            throw new IllegalArgumentException("'" + endpoint + "' is not an http or https URI with a host");
        }
        if (endpoint.getRawUserInfo() != null) {
            throw new IllegalArgumentException("an endpoint carries no credentials");
        }
    }

    /**
     * The settings of a store at an endpoint with fixed keys, path-style access and checksums where required:
     * a test's S3 server, or a store without the default credentials chain.
     */
    public static S3ClientSettings endpoint(URI endpoint, String accessKeyId, String secretAccessKey) {
        return new S3ClientSettings(
                endpoint,
                null,
                true,
                Checksums.WHEN_REQUIRED,
                StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKeyId, secretAccessKey)));
    }

    /**
     * A new client (the caller closes it): the JDK's HTTP client ({@code url-connection-client}), the standard retry strategy with
     * {@link #MAX_ATTEMPTS}, these timeouts and settings.
     *
     * @throws IllegalStateException when no region is set and the SDK's region chain finds none
     */
    public S3Client newClient() {
        S3ClientBuilder builder = S3Client.builder()
                .httpClientBuilder(UrlConnectionHttpClient.builder()
                        .connectionTimeout(CONNECT_TIMEOUT)
                        .socketTimeout(SOCKET_TIMEOUT))
                .overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.standardRetryStrategy().toBuilder()
                                .maxAttempts(MAX_ATTEMPTS)
                                .build())
                        .apiCallAttemptTimeout(ATTEMPT_TIMEOUT))
                .forcePathStyle(pathStyleAccess)
                .requestChecksumCalculation(checksums.requests())
                .responseChecksumValidation(checksums.responses());
        if (endpoint != null) {
            builder.endpointOverride(endpoint);
        }
        if (region != null) {
            builder.region(Region.of(region));
        } else if (endpoint != null) {
            builder.region(Region.US_EAST_1);
        }
        if (credentials != null) {
            builder.credentialsProvider(credentials);
        }
        try {
            return builder.build();
        } catch (SdkClientException e) {
            throw new IllegalStateException(
                    "no region for the archive's object store: set one (AWS_REGION, the profile's, or the"
                            + " store's own setting): " + e.getMessage(),
                    e);
        }
    }

    /** The endpoint for messages: the URI without anything but scheme, host, port and path. */
    static String describe(@Nullable URI endpoint, @Nullable Region region) {
        if (endpoint == null) {
            return "AWS S3" + (region != null ? " in " + region.id() : "");
        }
        try {
            return new URI(
                            endpoint.getScheme(),
                            null,
                            endpoint.getHost(),
                            endpoint.getPort(),
                            endpoint.getPath(),
                            null,
                            null)
                    .toString();
        } catch (URISyntaxException e) {
            return endpoint.getHost();
        }
    }

    /** The settings, without the credentials (only whether they are fixed or the default chain). */
    @Override
    public String toString() {
        return "S3ClientSettings[endpoint=" + (endpoint != null ? describe(endpoint, null) : "AWS S3")
                + ", region=" + region
                + ", pathStyleAccess=" + pathStyleAccess
                + ", checksums=" + checksums
                + ", credentials=" + (credentials != null ? "fixed" : "default chain") + "]";
    }
}
