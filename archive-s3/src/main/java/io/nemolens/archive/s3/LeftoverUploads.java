package io.nemolens.archive.s3;

import java.io.IOException;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.MultipartUpload;

/**
 * The incomplete multipart uploads an earlier run left under a location (it crashed, or its abort failed):
 * listed page by page, and those of one instance's files aborted.
 */
final class LeftoverUploads {

    private static final Logger log = LoggerFactory.getLogger(LeftoverUploads.class);

    /** What follows the instance id in a file's name: its content id (hex), a variant, the extension. */
    private static final Pattern CONTENT = Pattern.compile("[0-9a-f]+(-[0-9]+)?\\.parquet");

    private LeftoverUploads() {}

    /**
     * Aborts the incomplete uploads under the location of one instance's files: those whose file name (the
     * key's last segment) is {@code part-<time>-<instanceId>-<content id>[-<n>].parquet}, the instance id
     * exactly (so {@code consumer-1} does not match the files of {@code lens-consumer-1}).
     *
     * @return how many it aborted
     */
    static int abort(S3Client s3, S3Location location, String endpoint, String instanceId) throws IOException {
        int aborted = 0;
        try {
            for (MultipartUpload upload : s3.listMultipartUploadsPaginator(
                            b -> b.bucket(location.bucket()).prefix(location.keyPrefix()))
                    .uploads()) {
                String key = upload.key();
                if (ofInstance(fileName(key), instanceId)) {
                    abort(s3, location, endpoint, upload);
                    aborted++;
                }
            }
        } catch (SdkException e) {
            throw S3Errors.io("listing the multipart uploads under", location.toString(), endpoint, e);
        }
        if (aborted > 0) {
            log.info("aborted {} incomplete multipart uploads of this instance under {}", aborted, location);
        }
        return aborted;
    }

    /** Whether a file name is {@code part-<time>-<instanceId>-<hex content id>[-<n>].parquet}. */
    static boolean ofInstance(String fileName, String instanceId) {
        if (!fileName.startsWith("part-")) {
            return false;
        }
        int time = fileName.indexOf('-', "part-".length());
        if (time < 0 || !fileName.startsWith(instanceId + "-", time + 1)) {
            return false;
        }
        String rest = fileName.substring(time + 1 + instanceId.length() + 1);
        return CONTENT.matcher(rest).matches();
    }

    private static void abort(S3Client s3, S3Location location, String endpoint, MultipartUpload upload)
            throws IOException {
        try {
            s3.abortMultipartUpload(
                    b -> b.bucket(location.bucket()).key(upload.key()).uploadId(upload.uploadId()));
            log.info(
                    "aborted the incomplete multipart upload {} of {} (begun {})",
                    upload.uploadId(),
                    location.uri(upload.key()),
                    upload.initiated());
        } catch (SdkException e) {
            if (!S3Errors.hasStatus(e, S3Errors.NOT_FOUND)) {
                throw S3Errors.io("aborting the multipart upload of", location.uri(upload.key()), endpoint, e);
            }
        }
    }

    private static String fileName(String key) {
        return key.substring(key.lastIndexOf('/') + 1);
    }
}
