package io.nemolens.archive.s3;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * One file uploaded in parts: CreateMultipartUpload, an UploadPart of {@code partSize} bytes each read from
 * the local file, and CompleteMultipartUpload with {@code If-None-Match: *}, so that readers see the whole
 * object or nothing, and an existing object is never replaced. Whatever fails on the way, the upload is
 * aborted (its parts would cost storage until a lifecycle rule removed them); a failing abort is logged and
 * added to the original failure, which is what is thrown.
 */
final class MultipartUpload {

    private static final Logger log = LoggerFactory.getLogger(MultipartUpload.class);

    private final S3Client s3;
    private final S3Location location;
    private final String key;
    private final String endpoint;

    MultipartUpload(S3Client s3, S3Location location, String key, String endpoint) {
        this.s3 = s3;
        this.location = location;
        this.key = key;
        this.endpoint = endpoint;
    }

    /**
     * Uploads {@code size} bytes of the file under the key.
     *
     * @return {@code true} once the object is there; {@code false} when the key held an object already (412 on
     *     completion: the upload is aborted and the object left as it was)
     */
    boolean upload(Path file, long size, long partSize, Map<String, String> metadata, String contentType)
            throws IOException {
        String uploadId;
        try {
            uploadId = s3.createMultipartUpload(b -> b.bucket(location.bucket())
                            .key(key)
                            .metadata(metadata)
                            .contentType(contentType))
                    .uploadId();
        } catch (SdkException e) {
            throw S3Errors.io("starting a multipart upload of", location.uri(key), endpoint, e);
        }
        try {
            List<CompletedPart> parts = uploadParts(uploadId, file, size, partSize);
            return complete(uploadId, parts);
        } catch (IOException | RuntimeException | Error e) {
            SdkException failedAbort = abort(uploadId);
            if (failedAbort != null) {
                e.addSuppressed(failedAbort);
            }
            throw e;
        }
    }

    private List<CompletedPart> uploadParts(String uploadId, Path file, long size, long partSize) throws IOException {
        List<CompletedPart> parts = new ArrayList<>();
        int number = 1;
        for (long offset = 0; offset < size; offset += partSize, number++) {
            long length = Math.min(partSize, size - offset);
            int partNumber = number;
            try (FileSlice slice = new FileSlice(file, offset, length)) {
                String eTag = s3.uploadPart(
                                b -> b.bucket(location.bucket())
                                        .key(key)
                                        .uploadId(uploadId)
                                        .partNumber(partNumber)
                                        .contentLength(length)
                                        .overrideConfiguration(o -> o.apiCallAttemptTimeout(transferTimeout(length))),
                                RequestBody.fromContentProvider(slice, length, "application/octet-stream"))
                        .eTag();
                parts.add(CompletedPart.builder()
                        .partNumber(partNumber)
                        .eTag(eTag)
                        .build());
            } catch (SdkException e) {
                throw S3Errors.io("uploading part " + partNumber + " of", location.uri(key), endpoint, e);
            }
        }
        return parts;
    }

    private boolean complete(String uploadId, List<CompletedPart> parts) throws IOException {
        try {
            s3.completeMultipartUpload(b -> b.bucket(location.bucket())
                    .key(key)
                    .uploadId(uploadId)
                    .ifNoneMatch("*")
                    .multipartUpload(m -> m.parts(parts)));
            return true;
        } catch (SdkException e) {
            if (S3Errors.hasStatus(e, S3Errors.PRECONDITION_FAILED)) {
                abort(uploadId);
                return false;
            }
            throw S3Errors.io("completing the multipart upload of", location.uri(key), endpoint, e);
        }
    }

    /** Aborts the upload; returns the failure, logged, if that failed (an upload already gone is no failure). */
    private @Nullable SdkException abort(String uploadId) {
        try {
            s3.abortMultipartUpload(b -> b.bucket(location.bucket()).key(key).uploadId(uploadId));
            return null;
        } catch (SdkException e) {
            if (S3Errors.hasStatus(e, S3Errors.NOT_FOUND)) {
                return null;
            }
            log.warn(
                    "could not abort the multipart upload {} ({}); removed once the store takes a file again (or at"
                            + " the archive's next start)",
                    uploadId,
                    S3Errors.describe("aborting the multipart upload of", location.uri(key), endpoint, e));
            return e;
        }
    }

    /**
     * How long one attempt to send {@code bytes} may take: a minute, and a second per MiB (a connection
     * slower than 1 MiB/s fails; a silent one fails after the socket timeout anyway).
     */
    static Duration transferTimeout(long bytes) {
        return S3ClientSettings.ATTEMPT_TIMEOUT.plusSeconds(bytes >> 20);
    }
}
