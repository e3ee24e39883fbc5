package io.nemolens.claims;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ClaimsOptionsTest {

    private static final String URL = "jdbc:postgresql://db.example:5432/lens";

    @Test
    void theLocationNamesTheUrlAndTheTableButNoPassword() {
        ClaimsOptions options = new ClaimsOptions(
                URL + "?password=s3cret&ssl=true&sslpassword=k3y",
                "lens",
                "s3cret",
                "claims.lens_claims",
                Duration.ofSeconds(3));
        assertThat(options.location()).isEqualTo(URL + "?ssl=true (table claims.lens_claims)");
        assertThat(options.toString())
                .doesNotContain("s3cret")
                .doesNotContain("k3y")
                .contains("password=******", "username=lens", "PT3S");
        assertThat(ClaimsOptions.of(URL, null, null).toString())
                .contains("password=null", "lens_message_claims", "PT5S");
    }

    @Test
    void aUrlWithoutParametersIsItsOwnLocation() {
        assertThat(ClaimsOptions.safeUrl(URL)).isEqualTo(URL);
        assertThat(ClaimsOptions.safeUrl(URL + "?password=x")).isEqualTo(URL);
        assertThat(ClaimsOptions.safeUrl(URL + "?user=me&flag")).isEqualTo(URL + "?user=me&flag");
    }

    @ParameterizedTest
    @ValueSource(strings = {"Claims", "lens-claims", "1claims", "a.b.c", "claims;drop table x", ""})
    void aTableIsAPlainIdentifier(String table) {
        assertThatThrownBy(() -> new ClaimsOptions(URL, null, null, table, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("table");
    }

    @Test
    void theIndexNameFitsPostgresLimits() {
        String longest = "t".repeat(48);
        assertThat(new ClaimsOptions(URL, null, null, longest, Duration.ofSeconds(1)).table())
                .isEqualTo(longest);
        assertThatThrownBy(() -> new ClaimsOptions(URL, null, null, longest + "t", Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void onlyPostgresUrlsAndPositiveTimeouts() {
        assertThatThrownBy(() ->
                        new ClaimsOptions("jdbc:mysql://x/y?password=s3cret", null, null, "t", Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("jdbc:mysql://x/y")
                .message()
                .doesNotContain("s3cret");
        assertThatThrownBy(() -> new ClaimsOptions(URL, null, null, "t", Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("timeout");
    }
}
