package io.nemolens.archive.s3;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.archive.s3.autoconfigure.LensArchiveS3AutoConfiguration;
import io.nemolens.archive.store.ArchiveStore;
import io.nemolens.archive.store.StagedFile;
import io.nemolens.testing.S3Server;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import software.amazon.awssdk.services.s3.S3Client;

/** The auto-configured store, from {@code lens.archive.store.*} alone, against a real S3 server. */
class S3StoreWiringIT {

    @TempDir
    Path temp;

    @Test
    void theSettingsReachTheStore() throws IOException {
        try (S3Server server = S3Server.inTempFolder();
                S3Client raw = S3ClientSettings.endpoint(
                                server.endpoint(), S3Server.ACCESS_KEY_ID, S3Server.SECRET_ACCESS_KEY)
                        .newClient()) {
            String bucket = TestFiles.bucket();
            server.createBucket(bucket);
            StagedFile file = new TestFiles(temp).staged(TestFiles.name("i1"), 20L << 20);

            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(LensArchiveS3AutoConfiguration.class))
                    .withPropertyValues(server.springProperties("s3://" + bucket + "/prod").entrySet().stream()
                            .map(e -> e.getKey() + "=" + e.getValue())
                            .toArray(String[]::new))
                    .withPropertyValues(
                            "lens.archive.store.part-size=8MB", "lens.archive.store.multipart-threshold=8MB")
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        ArchiveStore store = context.getBean(ArchiveStore.class);
                        store.publish(file);
                        assertThat(store.holds(file.name(), file.contentId())).isTrue();
                    });

            Path object = server.folder(bucket).resolve("prod").resolve(file.name());
            assertThat(Files.mismatch(object, file.local())).isEqualTo(-1);
            assertThat(raw.headObject(b -> b.bucket(bucket).key("prod/" + file.name()))
                            .eTag())
                    .as("8 + 8 + 4 MiB")
                    .endsWith("-3\"");
        }
    }
}
