package io.nemolens.claims.autoconfigure;

import io.nemolens.archive.autoconfigure.LensArchiveAutoConfiguration;
import io.nemolens.archive.claims.MessageClaims;
import io.nemolens.claims.PostgresClaims;
import java.time.Clock;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The archive's {@link MessageClaims} on PostgreSQL, when {@code lens.archive.claims.enabled=true} (a start without
 * {@code lens.archive.claims.url} then fails, naming it). Before the archive's auto-configuration, which takes
 * the claims it finds. The registry connects when first used; the application's {@link Clock} (the system's UTC
 * clock without one) times the claims.
 */
@AutoConfiguration(before = LensArchiveAutoConfiguration.class)
@EnableConfigurationProperties(LensClaimsProperties.class)
@ConditionalOnProperty(prefix = "lens.archive.claims", name = "enabled", havingValue = "true")
public final class LensClaimsAutoConfiguration {

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(MessageClaims.class)
    PostgresClaims messageClaims(LensClaimsProperties properties, ObjectProvider<Clock> clock) {
        return new PostgresClaims(properties.toOptions(), clock.getIfAvailable(Clock::systemUTC));
    }
}
