package io.nemolens.archive.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nemolens.archive.store.NameTakenException;
import io.nemolens.archive.store.StagedFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;

/**
 * {@link S3Store} against a real S3 server (s3proxy in this JVM): what lands in the bucket is read back from
 * the server's folder, byte for byte.
 */
@ExtendWith(OutputCaptureExtension.class)
class S3StoreIT extends S3ServerTestCase {

    private static final String PREFIX = "archive/lens";

    private S3Store store;

    @BeforeEach
    void newStore() {
        store = new S3Store(settings().newClient(), new S3Location(bucket, PREFIX));
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    private Path object(String name) {
        return server.folder(bucket).resolve(PREFIX).resolve(name);
    }

    private HeadObjectResponse head(String name) {
        return raw.headObject(b -> b.bucket(bucket).key(PREFIX + "/" + name));
    }

    @Test
    void aSmallFileIsOnePutWithItsContentIdAndRows() throws IOException {
        StagedFile file = files.staged(TestFiles.name("i1"), 3 * MIB + 17);

        store.publish(file);

        assertThat(Files.mismatch(object(file.name()), file.local())).isEqualTo(-1);
        HeadObjectResponse head = head(file.name());
        assertThat(head.metadata())
                .containsEntry(S3Store.CONTENT_ID, file.contentId())
                .containsEntry(S3Store.ROWS, Long.toString(file.rows()));
        assertThat(head.eTag()).doesNotContain("-");
        assertThat(server.incompleteUploads(bucket)).isEmpty();
        assertThat(store.location()).isEqualTo("s3://" + bucket + "/" + PREFIX);
    }

    @Test
    void aLargeFileGoesUpInPartsAndLeavesNoUploadBehind() throws IOException {
        StagedFile file = files.staged(TestFiles.name("i1"), 40 * MIB);

        store.publish(file);

        assertThat(Files.mismatch(object(file.name()), file.local())).isEqualTo(-1);
        HeadObjectResponse head = head(file.name());
        assertThat(head.metadata()).containsEntry(S3Store.CONTENT_ID, file.contentId());
        assertThat(head.eTag()).as("a multipart ETag: 16 + 16 + 8 MiB").endsWith("-3\"");
        assertThat(server.incompleteUploads(bucket)).isEmpty();
    }

    @Test
    void withoutAPrefixTheNameIsTheKey() throws IOException {
        S3Store atRoot = new S3Store(settings().newClient(), S3Location.parse("s3://" + bucket));
        StagedFile file = files.staged(TestFiles.name("i1"), 1000);
        try (atRoot) {
            atRoot.publish(file);
        }
        assertThat(Files.mismatch(server.folder(bucket).resolve(file.name()), file.local()))
                .isEqualTo(-1);
    }

    /** The retry of a publication that got through before (its answer lost, the archive crashed). */
    @ParameterizedTest(name = "{0} MiB")
    @ValueSource(ints = {3, 20})
    void publishingTheSameFileAgainSucceedsAfterChecking(int mib, CapturedOutput output) throws IOException {
        StagedFile file = files.staged(TestFiles.name("i1"), mib * MIB);
        store.publish(file);
        long modified = Files.getLastModifiedTime(object(file.name())).toMillis();

        store.publish(file);

        assertThat(output).contains(file.name() + " already there, verified");
        assertThat(Files.mismatch(object(file.name()), file.local())).isEqualTo(-1);
        assertThat(Files.getLastModifiedTime(object(file.name())).toMillis()).isEqualTo(modified);
        assertThat(server.incompleteUploads(bucket)).isEmpty();
    }

    @ParameterizedTest(name = "{0} MiB")
    @ValueSource(ints = {3, 20})
    void otherContentUnderATakenNameIsRefusedAndChangesNothing(int mib) throws IOException {
        StagedFile first = files.staged(TestFiles.name("i1"), mib * MIB);
        store.publish(first);
        StagedFile other = files.staged(first.name(), mib * MIB);

        assertThatThrownBy(() -> store.publish(other))
                .isInstanceOf(NameTakenException.class)
                .hasMessageContaining(first.name())
                .hasMessageContaining("content id " + first.contentId())
                .hasMessageContaining("not " + other.contentId());

        assertThat(Files.mismatch(object(first.name()), first.local())).isEqualTo(-1);
        assertThat(head(first.name()).metadata()).containsEntry(S3Store.CONTENT_ID, first.contentId());
        assertThat(server.incompleteUploads(bucket)).isEmpty();
    }

    @Test
    void anObjectWithoutOurMetadataIsOtherContent() throws IOException {
        StagedFile file = files.staged(TestFiles.name("i1"), 1000);
        raw.putObject(
                b -> b.bucket(bucket).key(PREFIX + "/" + file.name()),
                software.amazon.awssdk.core.sync.RequestBody.fromString("someone else's"));

        assertThatThrownBy(() -> store.publish(file))
                .isInstanceOf(NameTakenException.class)
                .hasMessageContaining("an object without " + S3Store.CONTENT_ID);
        assertThat(Files.readString(object(file.name()))).isEqualTo("someone else's");
        assertThat(store.holds(file.name(), file.contentId())).isFalse();
    }

    @Test
    void ofEightWritersOfOneNameExactlyOneWins() throws Exception {
        String name = TestFiles.name("i1");
        List<StagedFile> contenders = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            contenders.add(files.staged(name, 2 * MIB + i));
        }
        CyclicBarrier start = new CyclicBarrier(contenders.size());
        ExecutorService threads = Executors.newFixedThreadPool(contenders.size());
        List<Future<StagedFile>> results = new ArrayList<>();
        try {
            for (StagedFile file : contenders) {
                Callable<StagedFile> publish = () -> {
                    start.await();
                    store.publish(file);
                    return file;
                };
                results.add(threads.submit(publish));
            }
            List<StagedFile> winners = new ArrayList<>();
            int taken = 0;
            for (Future<StagedFile> result : results) {
                try {
                    winners.add(result.get());
                } catch (java.util.concurrent.ExecutionException e) {
                    assertThat(e.getCause()).isInstanceOf(NameTakenException.class);
                    taken++;
                }
            }
            assertThat(winners).hasSize(1);
            assertThat(taken).isEqualTo(7);
            StagedFile winner = winners.get(0);
            assertThat(Files.mismatch(object(name), winner.local())).isEqualTo(-1);
            assertThat(head(name).metadata()).containsEntry(S3Store.CONTENT_ID, winner.contentId());
            try (var listed = Files.list(object(name).getParent())) {
                assertThat(listed.filter(p -> !p.getFileName().toString().startsWith(".")))
                        .containsExactly(object(name));
            }
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void holdsTellsOursFromOtherContentAndFromNothing() throws IOException {
        StagedFile file = files.staged(TestFiles.name("i1"), 1000);
        assertThat(store.holds(file.name(), file.contentId())).isFalse();

        store.publish(file);

        assertThat(store.holds(file.name(), file.contentId())).isTrue();
        assertThat(store.holds(file.name(), TestFiles.contentId())).isFalse();
        assertThat(store.holds(TestFiles.name("i1"), file.contentId())).isFalse();
    }

    @Test
    void aStoreThatIsDownFailsWithinSecondsAndWorksOnceBack() throws IOException {
        StagedFile file = files.staged(TestFiles.name("i1"), 1000);
        StagedFile large = files.staged(TestFiles.name("i1"), 17 * MIB);
        String endpoint = server.endpoint().toString();
        server.stop();
        try {
            long start = System.nanoTime();
            assertThatThrownBy(() -> store.publish(file))
                    .isInstanceOf(IOException.class)
                    .isNotInstanceOf(NameTakenException.class)
                    .hasMessageContaining("uploading s3://" + bucket + "/" + PREFIX + "/" + file.name())
                    .hasMessageContaining(endpoint);
            assertThatThrownBy(() -> store.publish(large))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("starting a multipart upload of s3://" + bucket)
                    .hasMessageContaining(endpoint);
            assertThatThrownBy(() -> store.holds(file.name(), file.contentId()))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("checking s3://" + bucket)
                    .hasMessageContaining(endpoint);
            assertThatThrownBy(() -> store.cleanUp("i1"))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("listing the multipart uploads under s3://" + bucket + "/" + PREFIX)
                    .hasMessageContaining(endpoint);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(15));
        } finally {
            server.start();
        }
        assertThat(server.endpoint().toString()).isEqualTo(endpoint);

        store.publish(file);
        store.publish(large);

        assertThat(Files.mismatch(object(file.name()), file.local())).isEqualTo(-1);
        assertThat(Files.mismatch(object(large.name()), large.local())).isEqualTo(-1);
    }

    @Test
    void aMissingBucketIsNamedInTheFailure() throws IOException {
        StagedFile small = files.staged(TestFiles.name("i1"), 1000);
        StagedFile large = files.staged(TestFiles.name("i1"), 17 * MIB);
        String missing = TestFiles.bucket();
        try (S3Store nowhere = new S3Store(settings().newClient(), new S3Location(missing, PREFIX))) {
            assertThatThrownBy(() -> nowhere.publish(small))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("uploading s3://" + missing + "/" + PREFIX + "/" + small.name() + ": 404")
                    .hasMessageContaining("NoSuchBucket");
            assertThatThrownBy(() -> nowhere.publish(large))
                    .isInstanceOf(IOException.class)
                    .hasMessageContaining("starting a multipart upload of s3://" + missing)
                    .hasMessageContaining("NoSuchBucket");
        }
    }

    @Test
    void aFileWhoseSizeIsNotTheRecordedOneIsNotUploaded() throws IOException {
        StagedFile file = files.staged(TestFiles.name("i1"), 1000);
        StagedFile wrong = new StagedFile(file.local(), file.name(), file.contentId(), 999, file.rows());

        assertThatThrownBy(() -> store.publish(wrong))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("has 1000 bytes, not the 999 recorded");
        assertThat(object(file.name())).doesNotExist();
    }
}
