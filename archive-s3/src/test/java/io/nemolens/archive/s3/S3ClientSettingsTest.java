package io.nemolens.archive.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

class S3ClientSettingsTest {

    @Test
    void anEndpointWithFixedKeysIsPathStyleInUsEast1WithChecksumsWhereRequired() {
        S3ClientSettings settings = S3ClientSettings.endpoint(URI.create("http://127.0.0.1:9000"), "id", "s3cr3t");

        try (S3Client client = settings.newClient()) {
            var configuration = client.serviceClientConfiguration();
            assertThat(configuration.region()).isEqualTo(Region.US_EAST_1);
            assertThat(configuration.endpointOverride()).contains(URI.create("http://127.0.0.1:9000"));
            assertThat(configuration.requestChecksumCalculation()).isEqualTo(RequestChecksumCalculation.WHEN_REQUIRED);
            assertThat(configuration.responseChecksumValidation()).isEqualTo(ResponseChecksumValidation.WHEN_REQUIRED);
            assertThat(configuration.overrideConfiguration().apiCallAttemptTimeout())
                    .contains(S3ClientSettings.ATTEMPT_TIMEOUT);
        }
        assertThat(settings.toString()).contains("credentials=fixed").doesNotContain("s3cr3t");
    }

    @Test
    void aRegionAndChecksumsWhereSupported() {
        S3ClientSettings settings = new S3ClientSettings(null, "eu-west-3", false, Checksums.WHEN_SUPPORTED, null);

        try (S3Client client = settings.newClient()) {
            assertThat(client.serviceClientConfiguration().region()).isEqualTo(Region.EU_WEST_3);
            assertThat(client.serviceClientConfiguration().requestChecksumCalculation())
                    .isEqualTo(RequestChecksumCalculation.WHEN_SUPPORTED);
        }
        assertThat(settings.toString()).contains("AWS S3").contains("default chain");
    }

    @Test
    void anEndpointIsHttpOrHttpsWithAHostAndNoCredentials() {
        assertThatThrownBy(() -> S3ClientSettings.checkEndpoint(URI.create("ftp://store:21")))
                .hasMessageContaining("not an http or https URI");
        assertThatThrownBy(() -> S3ClientSettings.checkEndpoint(URI.create("http:/store")))
                .hasMessageContaining("not an http or https URI");
        assertThatThrownBy(() -> S3ClientSettings.checkEndpoint(URI.create("https://id:secret@store")))
                .hasMessage("an endpoint carries no credentials");
    }

    @Test
    void messagesShowTheEndpointWithoutAnythingElse() {
        assertThat(S3ClientSettings.describe(URI.create("https://store.example:9000/s3?x=1#f"), null))
                .isEqualTo("https://store.example:9000/s3");
        assertThat(S3ClientSettings.describe(null, Region.EU_WEST_3)).isEqualTo("AWS S3 in eu-west-3");
    }
}
