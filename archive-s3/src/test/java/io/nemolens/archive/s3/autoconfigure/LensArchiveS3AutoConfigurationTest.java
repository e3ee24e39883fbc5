package io.nemolens.archive.s3.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.archive.autoconfigure.LensArchiveAutoConfiguration;
import io.nemolens.archive.s3.Checksums;
import io.nemolens.archive.s3.S3Store;
import io.nemolens.archive.store.ArchiveStore;
import io.nemolens.archive.store.FileName;
import io.nemolens.testing.Wiring.Replaceable;
import io.nemolens.testing.WiringChecks;
import java.net.URI;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.util.unit.DataSize;

/** Wiring of the object store ({@code lens.archive.store.*}): no server is reached. */
class LensArchiveS3AutoConfigurationTest implements WiringChecks {

    private static final String URI_SET = "lens.archive.store.uri=s3://lens-archive/prod";
    private static final String ENDPOINT = "lens.archive.store.endpoint=http://127.0.0.1:9";

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LensArchiveS3AutoConfiguration.class));

    @Override
    public ApplicationContextRunner runner() {
        return runner;
    }

    static Stream<Replaceable> replaceables() {
        return Stream.of(Replaceable.byType("s3ArchiveStore", ArchiveStore.class, URI_SET, ENDPOINT));
    }

    static Stream<String> invalidSettings() {
        return Stream.of(
                "lens.archive.store.uri=http://lens-archive/prod",
                "lens.archive.store.uri=lens-archive",
                "lens.archive.store.uri=s3://Lens_Archive",
                "lens.archive.store.uri=s3://lens-archive//prod",
                "lens.archive.store.endpoint=ftp://store:21",
                "lens.archive.store.endpoint=https://id:secret@store",
                "lens.archive.store.checksums=sometimes",
                "lens.archive.store.part-size=4MB",
                "lens.archive.store.part-size=6GB",
                "lens.archive.store.multipart-threshold=6GB",
                "lens.archive.store.access-key-id=AKIDONLY",
                "lens.archive.store.secret-access-key=alone");
    }

    @Test
    void withoutAUriThereIsNoStore() {
        runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ArchiveStore.class));
    }

    @Test
    void anEmptyUriMeansTheLocalFolder() {
        runner.withPropertyValues("lens.archive.store.uri=", ENDPOINT)
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ArchiveStore.class));
        runner.withPropertyValues("lens.archive.store.uri=  ", ENDPOINT)
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ArchiveStore.class));
    }

    @Test
    void aUriMakesTheStore() {
        runner.withPropertyValues(URI_SET, ENDPOINT).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(ArchiveStore.class);
            ArchiveStore store = context.getBean(ArchiveStore.class);
            assertThat(store).isInstanceOf(S3Store.class);
            assertThat(store.location()).isEqualTo("s3://lens-archive/prod");
            FileName name = new FileName("spans/part-t-pod-7-000001.parquet", "pod-7", "c0ffee");
            assertThat(store.name(name, 0)).isEqualTo("spans/part-t-pod-7-c0ffee.parquet");
            assertThat(store.name(name, 1)).isEqualTo("spans/part-t-pod-7-c0ffee-1.parquet");
            assertThat(store.mayHold("spans/elsewhere.parquet")).isTrue();
            assertThat(store).hasToString("S3Store[s3://lens-archive/prod at http://127.0.0.1:9]");
        });
    }

    @Test
    void noStoreWhenTheArchiveIsOff() {
        runner.withPropertyValues(URI_SET, ENDPOINT, "lens.archive.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ArchiveStore.class));
    }

    @Test
    void theDefaults() {
        runner.withPropertyValues(URI_SET, ENDPOINT).run(context -> {
            LensArchiveS3Properties properties = context.getBean(LensArchiveS3Properties.class);
            assertThat(properties.checksums()).isEqualTo(Checksums.WHEN_REQUIRED);
            assertThat(properties.partSize()).isEqualTo(DataSize.ofMegabytes(16));
            assertThat(properties.multipartThreshold()).isEqualTo(DataSize.ofMegabytes(16));
            assertThat(properties.pathStyleAccess()).isFalse();
            assertThat(properties.region()).isNull();
            assertThat(properties.clientSettings().credentials())
                    .as("the default chain")
                    .isNull();
        });
    }

    @Test
    void everySettingIsBound() {
        runner.withPropertyValues(
                        URI_SET,
                        "lens.archive.store.endpoint=https://minio.example:9000",
                        "lens.archive.store.region=eu-west-3",
                        "lens.archive.store.path-style-access=true",
                        "lens.archive.store.checksums=when-supported",
                        "lens.archive.store.part-size=32MB",
                        "lens.archive.store.multipart-threshold=64MB",
                        "lens.archive.store.access-key-id=AKIDEXAMPLE",
                        "lens.archive.store.secret-access-key=wJalrXUtnFEMI/K7MDENG")
                .run(context -> {
                    LensArchiveS3Properties properties = context.getBean(LensArchiveS3Properties.class);
                    assertThat(properties.location().bucket()).isEqualTo("lens-archive");
                    assertThat(properties.location().prefix()).isEqualTo("prod");
                    assertThat(properties.endpoint()).isEqualTo(URI.create("https://minio.example:9000"));
                    assertThat(properties.region()).isEqualTo("eu-west-3");
                    assertThat(properties.pathStyleAccess()).isTrue();
                    assertThat(properties.checksums()).isEqualTo(Checksums.WHEN_SUPPORTED);
                    assertThat(properties.partSize()).isEqualTo(DataSize.ofMegabytes(32));
                    assertThat(properties.multipartThreshold()).isEqualTo(DataSize.ofMegabytes(64));
                    assertThat(properties.clientSettings().credentials()).isNotNull();
                    assertThat(properties.toString())
                            .contains("AKIDEXAMPLE")
                            .doesNotContain("wJalrXUtnFEMI")
                            .contains("secretAccessKey=******");
                    assertThat(properties.clientSettings().toString()).doesNotContain("wJalrXUtnFEMI");
                    assertThat(context.getBean(ArchiveStore.class).location()).isEqualTo("s3://lens-archive/prod");
                });
    }

    @Test
    void aWrongUriIsNamedWithWhatIsWrong() {
        runner.withPropertyValues("lens.archive.store.uri=http://lens-archive/prod")
                .run(
                        context -> assertThat(context)
                                .getFailure()
                                .hasStackTraceContaining(
                                        "lens.archive.store.uri: 'http://lens-archive/prod' is not s3://bucket or s3://bucket/prefix"));
    }

    @Test
    void itIsRegisteredAndComesBeforeTheArchive() {
        assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()))
                .contains(LensArchiveS3AutoConfiguration.class.getName());
        assertThat(LensArchiveS3AutoConfiguration.class
                        .getAnnotation(AutoConfiguration.class)
                        .before())
                .containsExactly(LensArchiveAutoConfiguration.class);
    }
}
