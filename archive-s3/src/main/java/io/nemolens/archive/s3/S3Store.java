package io.nemolens.archive.s3;

import io.nemolens.archive.store.ArchiveStore;
import io.nemolens.archive.store.FileName;
import io.nemolens.archive.store.NameTakenException;
import io.nemolens.archive.store.StagedFile;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ServiceClientConfiguration;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/**
 * The archive's files in a bucket of S3-compatible object storage, under {@code <prefix>/<name>}. Every write
 * is conditional ({@code If-None-Match: *}): a file below the multipart threshold is one PutObject, a larger
 * one a multipart upload completed conditionally, so readers never see a part of a file and an object is never
 * replaced. When the name is taken (412), the object's {@value #CONTENT_ID} metadata tells an earlier attempt
 * of this file (success) from other content ({@link NameTakenException}).
 *
 * <p>Every other failure is an {@link IOException} naming the operation, the object and the store's answer;
 * the archive retries it. The store owns its client and closes it. Thread-safe.
 */
public final class S3Store implements ArchiveStore {

    /** The user metadata that holds a file's content id ({@code x-amz-meta-lens-content-id}). */
    public static final String CONTENT_ID = "lens-content-id";

    /** The user metadata that holds a file's row count. */
    public static final String ROWS = "lens-rows";

    /** Files of this size and larger are uploaded in parts, by default. */
    public static final long DEFAULT_MULTIPART_THRESHOLD = 16L << 20;

    /** The size of a part, by default. */
    public static final long DEFAULT_PART_SIZE = 16L << 20;

    /** The smallest part size allowed (S3's minimum is 5 MiB for all parts but the last). */
    public static final long MIN_PART_SIZE = 8L << 20;

    /** S3's largest single PutObject and largest part. */
    static final long MAX_SINGLE_UPLOAD = 5L << 30;

    /** S3's most parts of an upload. */
    static final int MAX_PARTS = 10_000;

    static final String CONTENT_TYPE = "application/vnd.apache.parquet";

    private static final Logger log = LoggerFactory.getLogger(S3Store.class);

    private final S3Client s3;
    private final S3Location location;
    private final long multipartThreshold;
    private final long partSize;
    private final String endpoint;

    /** A store with the default multipart threshold and part size. */
    public S3Store(S3Client s3, S3Location location) {
        this(s3, location, DEFAULT_MULTIPART_THRESHOLD, DEFAULT_PART_SIZE);
    }

    /**
     * @param s3 the client, which the store closes ({@link S3ClientSettings#newClient()} makes one)
     * @param location the bucket and the prefix of the archive's keys
     * @param multipartThreshold files of this size and larger are uploaded in parts (1 byte to 5 GiB)
     * @param partSize the size of a part ({@value #MIN_PART_SIZE} bytes to 5 GiB); larger where a file would
     *     need more than 10,000 parts
     */
    public S3Store(S3Client s3, S3Location location, long multipartThreshold, long partSize) {
        if (multipartThreshold < 1 || multipartThreshold > MAX_SINGLE_UPLOAD) {
            throw new IllegalArgumentException("multipartThreshold " + multipartThreshold + " is not 1 byte to 5 GiB");
        }
        if (partSize < MIN_PART_SIZE || partSize > MAX_SINGLE_UPLOAD) {
            throw new IllegalArgumentException("partSize " + partSize + " is not 8 MiB to 5 GiB");
        }
        this.s3 = s3;
        this.location = location;
        this.multipartThreshold = multipartThreshold;
        this.partSize = partSize;
        S3ServiceClientConfiguration configuration = s3.serviceClientConfiguration();
        this.endpoint =
                S3ClientSettings.describe(configuration.endpointOverride().orElse(null), configuration.region());
    }

    /** {@code s3://bucket/prefix}. */
    @Override
    public String location() {
        return location.toString();
    }

    /** Named after what it holds ({@link FileName#byContent}): an attempt after a crash finds the first one's. */
    @Override
    public String name(FileName file, int variant) {
        return file.byContent(variant);
    }

    /** Yes: only {@link #holds} could tell, and that costs a request. */
    @Override
    public boolean mayHold(String name) {
        return true;
    }

    /**
     * Aborts the incomplete multipart uploads under the prefix of this instance's files
     * ({@code part-<time>-<instanceId>-<content id>.parquet}: an earlier run of it left them); other instances'
     * uploads are left alone.
     */
    @Override
    public void cleanUp(String instanceId) throws IOException {
        if (instanceId.isBlank()) {
            throw new IllegalArgumentException("no instance id");
        }
        LeftoverUploads.abort(s3, location, endpoint, instanceId);
    }

    @Override
    public void publish(StagedFile file) throws IOException {
        String key = location.key(file.name());
        long size = Files.size(file.local());
        if (size != file.bytes()) {
            throw new IOException(file.local() + " has " + size + " bytes, not the " + file.bytes() + " recorded for "
                    + location.uri(key));
        }
        Map<String, String> metadata = Map.of(CONTENT_ID, file.contentId(), ROWS, Long.toString(file.rows()));
        boolean created = size < multipartThreshold
                ? put(file, key, size, metadata)
                : new MultipartUpload(s3, location, key, endpoint)
                        .upload(file.local(), size, partSize(size), metadata, CONTENT_TYPE);
        if (created) {
            log.debug("published {} ({} bytes, {} rows)", location.uri(key), size, file.rows());
        } else {
            verifyTaken(file, key);
        }
    }

    private boolean put(StagedFile file, String key, long size, Map<String, String> metadata) throws IOException {
        try {
            s3.putObject(
                    b -> b.bucket(location.bucket())
                            .key(key)
                            .ifNoneMatch("*")
                            .contentLength(size)
                            .contentType(CONTENT_TYPE)
                            .metadata(metadata)
                            .overrideConfiguration(o -> o.apiCallAttemptTimeout(MultipartUpload.transferTimeout(size))),
                    RequestBody.fromFile(file.local()));
            return true;
        } catch (SdkException e) {
            if (S3Errors.hasStatus(e, S3Errors.PRECONDITION_FAILED)) {
                return false;
            }
            throw S3Errors.io("uploading", location.uri(key), endpoint, e);
        }
    }

    /** The name was taken (412): by an earlier attempt at this file, or by other content. */
    private void verifyTaken(StagedFile file, String key) throws IOException {
        String theirs = contentIdAt(key, "checking the existing");
        if (file.contentId().equals(theirs)) {
            log.info("{} already there, verified (content id {})", location.uri(key), theirs);
            return;
        }
        if (theirs == null) {
            throw new IOException("uploading " + location.uri(key) + ": 412 PreconditionFailed, but no object is"
                    + " there now (removed meanwhile?)");
        }
        throw new NameTakenException(
                file.name(),
                location.uri(key) + " holds "
                        + (theirs.isEmpty() ? "an object without " + CONTENT_ID : "content id " + theirs)
                        + ", not " + file.contentId());
    }

    @Override
    public boolean holds(String name, String contentId) throws IOException {
        return contentId.equals(contentIdAt(location.key(name), "checking"));
    }

    /** The object's content id: empty without the metadata, {@code null} without an object. */
    private @Nullable String contentIdAt(String key, String operation) throws IOException {
        HeadObjectResponse head;
        try {
            head = s3.headObject(b -> b.bucket(location.bucket()).key(key));
        } catch (SdkException e) {
            if (S3Errors.hasStatus(e, S3Errors.NOT_FOUND)) {
                return null;
            }
            throw S3Errors.io(operation, location.uri(key), endpoint, e);
        }
        String theirs = head.metadata().get(CONTENT_ID);
        return theirs != null ? theirs : "";
    }

    /** The configured part size, or larger where the file would need more than {@value #MAX_PARTS} parts. */
    long partSize(long size) {
        long needed = (size + MAX_PARTS - 1) / MAX_PARTS;
        return Math.max(partSize, needed);
    }

    /** Closes the client. */
    @Override
    public void close() {
        s3.close();
    }

    @Override
    public String toString() {
        return "S3Store[" + location + " at " + endpoint + "]";
    }
}
