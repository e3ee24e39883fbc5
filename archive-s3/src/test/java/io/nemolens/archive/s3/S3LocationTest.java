package io.nemolens.archive.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class S3LocationTest {

    @Test
    void aBucketAndAPrefix() {
        S3Location location = S3Location.parse("s3://lens-archive/prod/eu");

        assertThat(location).isEqualTo(new S3Location("lens-archive", "prod/eu"));
        assertThat(location.key("spans/date=2026-12-01/part-1.parquet"))
                .isEqualTo("prod/eu/spans/date=2026-12-01/part-1.parquet");
        assertThat(location.keyPrefix()).isEqualTo("prod/eu/");
        assertThat(location).hasToString("s3://lens-archive/prod/eu");
        assertThat(location.uri("prod/eu/x")).isEqualTo("s3://lens-archive/prod/eu/x");
    }

    @ParameterizedTest
    @ValueSource(strings = {"s3://lens-archive", "s3://lens-archive/"})
    void aBucketAlone(String uri) {
        S3Location location = S3Location.parse(uri);

        assertThat(location.prefix()).isEmpty();
        assertThat(location.key("spans/part-1.parquet")).isEqualTo("spans/part-1.parquet");
        assertThat(location.keyPrefix()).isEmpty();
        assertThat(location).hasToString("s3://lens-archive");
    }

    @Test
    void oneTrailingSlashIsDropped() {
        assertThat(S3Location.parse("s3://lens-archive/prod/").key("a.parquet")).isEqualTo("prod/a.parquet");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "lens-archive/prod",
                "http://lens-archive/prod",
                "s3:/lens-archive",
                "s3://",
                "s3://Lens-Archive",
                "s3://ab",
                "s3://lens_archive",
                "s3://-lens",
                "s3://lens-archive//prod",
                "s3://lens-archive/prod//eu",
                "s3://lens-archive/prod//"
            })
    void whatIsNotABucketAndPrefixIsRefusedSayingWhy(String uri) {
        assertThatThrownBy(() -> S3Location.parse(uri))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'");
    }

    @Test
    void aNameIsRelative() {
        assertThatThrownBy(() -> new S3Location("lens-archive", "p").key("/spans/a.parquet"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
