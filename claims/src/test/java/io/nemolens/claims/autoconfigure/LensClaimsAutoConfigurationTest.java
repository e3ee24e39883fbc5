package io.nemolens.claims.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.springframework.test.util.ReflectionTestUtils.getField;

import io.nemolens.archive.autoconfigure.LensArchiveAutoConfiguration;
import io.nemolens.archive.claims.MessageClaims;
import io.nemolens.claims.PostgresClaims;
import io.nemolens.testing.Wiring;
import io.nemolens.testing.Wiring.Replaceable;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Wiring of the PostgreSQL claims ({@code lens.archive.claims.*}); nothing here connects to a database. */
class LensClaimsAutoConfigurationTest {

    private static final String URL = "jdbc:postgresql://127.0.0.1:5432/test";

    private final ApplicationContextRunner runner =
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(LensClaimsAutoConfiguration.class));

    private ApplicationContextRunner enabled() {
        return runner.withPropertyValues("lens.archive.claims.enabled=true", "lens.archive.claims.url=" + URL);
    }

    @Test
    void offByDefault() {
        runner.run(context -> assertThat(context)
                .hasNotFailed()
                .doesNotHaveBean(MessageClaims.class)
                .doesNotHaveBean(LensClaimsProperties.class));
        runner.withPropertyValues("lens.archive.claims.url=" + URL)
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(MessageClaims.class));
    }

    @Test
    void enabledWithAUrlTheClaimsAreOnPostgres() {
        enabled().run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(MessageClaims.class);
            assertThat(context.getBean(MessageClaims.class)).isInstanceOf(PostgresClaims.class);
            assertThat(context.getBean(MessageClaims.class).location()).isEqualTo(URL + " (table lens_message_claims)");
            assertThat(context.getBean(LensClaimsProperties.class).toOptions().timeout())
                    .isEqualTo(Duration.ofSeconds(5));
            assertThat(getField(context.getBean(MessageClaims.class), "clock")).isEqualTo(Clock.systemUTC());
        });
    }

    @Test
    void everySettingReachesTheRegistry() {
        Clock clock = Clock.fixed(Instant.parse("2026-12-01T10:00:00Z"), ZoneOffset.UTC);
        enabled()
                .withPropertyValues(
                        "lens.archive.claims.username=lens",
                        "lens.archive.claims.password=s3cret",
                        "lens.archive.claims.table=claims.lens_claims",
                        "lens.archive.claims.timeout=1500ms")
                .withBean(Clock.class, () -> clock)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    LensClaimsProperties properties = context.getBean(LensClaimsProperties.class);
                    assertThat(properties.toOptions())
                            .extracting("url", "username", "password", "table", "timeout")
                            .containsExactly(URL, "lens", "s3cret", "claims.lens_claims", Duration.ofMillis(1500));
                    MessageClaims claims = context.getBean(MessageClaims.class);
                    assertThat(claims.location()).isEqualTo(URL + " (table claims.lens_claims)");
                    assertThat(getField(claims, "clock")).isSameAs(clock);
                });
    }

    @Test
    void thePasswordIsNeverPrinted() {
        enabled().withPropertyValues("lens.archive.claims.password=s3cret").run(context -> {
            LensClaimsProperties properties = context.getBean(LensClaimsProperties.class);
            assertThat(properties.password()).isEqualTo("s3cret");
            assertThat(properties.toString()).doesNotContain("s3cret").contains("password=******");
            assertThat(properties.toOptions().toString()).doesNotContain("s3cret");
            assertThat(context.getBean(MessageClaims.class).toString()).doesNotContain("s3cret");
        });
    }

    @Test
    void enabledWithoutAUrlDoesNotStart() {
        Wiring.assertRejected(runner, "lens.archive.claims.enabled=true", "lens.archive.claims.url");
        Wiring.assertRejected(
                runner.withPropertyValues("lens.archive.claims.url= "),
                "lens.archive.claims.enabled=true",
                "lens.archive.claims.url");
    }

    @Test
    void invalidSettingsDoNotStart() {
        Wiring.assertRejected(enabled(), "lens.archive.claims.url=jdbc:mysql://127.0.0.1/test", "url");
        Wiring.assertRejected(enabled(), "lens.archive.claims.table=lens-claims", "table");
        Wiring.assertRejected(enabled(), "lens.archive.claims.timeout=0s");
    }

    @Test
    void anApplicationsOwnClaimsWin() {
        Replaceable.byType(
                        "messageClaims",
                        MessageClaims.class,
                        "lens.archive.claims.enabled=true",
                        "lens.archive.claims.url=" + URL)
                .assertBacksOff(runner);
    }

    @Test
    void theContextClosesTheRegistry() {
        MessageClaims[] claims = new MessageClaims[1];
        enabled().run(context -> claims[0] = context.getBean(MessageClaims.class));
        assertThatThrownBy(() -> claims[0].claim("a", List.of("0".repeat(32))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("closed");
    }

    @Test
    void registeredBeforeTheArchive() {
        List<String> registered = ImportCandidates.load(
                        AutoConfiguration.class, getClass().getClassLoader())
                .getCandidates();
        assertThat(registered).contains(LensClaimsAutoConfiguration.class.getName());
        assertThat(LensClaimsAutoConfiguration.class
                        .getAnnotation(AutoConfiguration.class)
                        .before())
                .containsExactly(LensArchiveAutoConfiguration.class);
    }
}
