package io.nemolens.archive.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nemolens.archive.store.StagedFile;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;

/**
 * Incomplete multipart uploads against a real S3 server: a failed upload aborts itself, and what a failed
 * abort (or a crash) leaves behind, {@link S3Store#cleanUp} removes (at the next start, or once the store
 * takes a file again): this instance's only.
 */
@ExtendWith(OutputCaptureExtension.class)
class S3StoreCleanUpIT extends S3ServerTestCase {

    private static final String PREFIX = "archive";

    private String begin(String key, boolean withAPart) {
        String uploadId =
                raw.createMultipartUpload(b -> b.bucket(bucket).key(key)).uploadId();
        if (withAPart) {
            raw.uploadPart(
                    b -> b.bucket(bucket).key(key).uploadId(uploadId).partNumber(1),
                    RequestBody.fromBytes(new byte[(int) (5 * MIB)]));
        }
        return uploadId;
    }

    @Test
    void cleanUpAbortsThisInstancesUploadsOnly(CapturedOutput output) throws IOException {
        String mine1 = PREFIX + "/" + TestFiles.name("i1");
        String mine2 = PREFIX + "/logs/date=2026-12-01/part-00002-i1-abc.parquet";
        String otherInstance = PREFIX + "/" + TestFiles.name("i2");
        String similarInstance = PREFIX + "/" + TestFiles.name("i10");
        String outsideThePrefix = "elsewhere/" + TestFiles.name("i1");
        String mineInAFolderNamedLikeIt = PREFIX + "/x-i1-y/part-00003-i3-abc.parquet";
        String endsLikeIt = PREFIX + "/" + TestFiles.name("x-i1");
        String beginsLikeIt = PREFIX + "/" + TestFiles.name("i1-x");
        begin(mine1, true);
        begin(mine2, false);
        begin(otherInstance, true);
        begin(similarInstance, false);
        begin(outsideThePrefix, false);
        begin(mineInAFolderNamedLikeIt, false);
        begin(endsLikeIt, false);
        begin(beginsLikeIt, false);

        try (S3Store store = new S3Store(settings().newClient(), new S3Location(bucket, PREFIX))) {
            store.cleanUp("i1");
        }

        assertThat(server.incompleteUploads(bucket))
                .containsExactlyInAnyOrder(
                        otherInstance,
                        similarInstance,
                        outsideThePrefix,
                        mineInAFolderNamedLikeIt,
                        endsLikeIt,
                        beginsLikeIt);
        assertThat(output)
                .contains("aborted the incomplete multipart upload")
                .contains(mine1)
                .contains(mine2);
    }

    @Test
    void cleanUpWithNothingLeftIsQuiet() throws IOException {
        try (S3Store store = new S3Store(settings().newClient(), new S3Location(bucket, PREFIX))) {
            store.cleanUp("i1");
        }
        assertThat(server.incompleteUploads(bucket)).isEmpty();
    }

    @Test
    void aPartThatFailsAbortsTheUpload() throws IOException {
        FaultyS3Client faulty = new FaultyS3Client(settings().newClient());
        faulty.failPart.set(2);
        StagedFile file = files.staged(TestFiles.name("i1"), 40 * MIB);

        try (S3Store store = new S3Store(faulty, new S3Location(bucket, PREFIX))) {
            assertThatThrownBy(() -> store.publish(file))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("uploading part 2 of s3://" + bucket + "/" + PREFIX + "/" + file.name())
                    .hasMessageContaining("connection reset (injected)");
        }

        assertThat(faulty.aborts).hasValue(1);
        assertThat(server.incompleteUploads(bucket)).isEmpty();
        assertThatThrownBy(() -> raw.headObject(b -> b.bucket(bucket).key(PREFIX + "/" + file.name())))
                .isInstanceOf(NoSuchKeyException.class);
    }

    @Test
    void aFailedCompletionAbortsTheUpload() throws IOException {
        FaultyS3Client faulty = new FaultyS3Client(settings().newClient());
        faulty.failCompletion.set(true);
        StagedFile file = files.staged(TestFiles.name("i1"), 20 * MIB);

        try (S3Store store = new S3Store(faulty, new S3Location(bucket, PREFIX))) {
            assertThatThrownBy(() -> store.publish(file))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("completing the multipart upload of s3://" + bucket)
                    .hasMessageContaining(": 500 InternalError (We encountered an internal error (injected);");
        }

        assertThat(server.incompleteUploads(bucket)).isEmpty();
    }

    @Test
    void aFailedAbortKeepsTheOriginalFailureAndCleanUpRemovesTheUploadLater(CapturedOutput output) throws IOException {
        FaultyS3Client faulty = new FaultyS3Client(settings().newClient());
        faulty.failPart.set(2);
        faulty.failAbort.set(true);
        StagedFile file = files.staged(TestFiles.name("i1"), 20 * MIB);
        String key = PREFIX + "/" + file.name();

        try (S3Store store = new S3Store(faulty, new S3Location(bucket, PREFIX))) {
            assertThatThrownBy(() -> store.publish(file))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("uploading part 2 of")
                    .satisfies(e -> assertThat(e.getSuppressed())
                            .singleElement()
                            .extracting(Throwable::getMessage)
                            .isEqualTo("connection refused (injected)"));
        }
        assertThat(output).contains("could not abort the multipart upload");
        assertThat(server.incompleteUploads(bucket)).isEqualTo(List.of(key));

        try (S3Store restarted = new S3Store(settings().newClient(), new S3Location(bucket, PREFIX))) {
            restarted.cleanUp("i1");
            assertThat(server.incompleteUploads(bucket)).isEmpty();
            restarted.publish(file);
            assertThat(restarted.holds(file.name(), file.contentId())).isTrue();
        }
    }
}
