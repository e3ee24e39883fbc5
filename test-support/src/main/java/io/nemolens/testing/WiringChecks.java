package io.nemolens.testing;

import io.nemolens.testing.Wiring.Replaceable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * The two checks every module's auto-configuration test makes, as a JUnit test interface: each bean of the
 * test's {@code replaceables()} backs off when the application defines its own
 * ({@link Replaceable#assertBacksOff}), and each setting of its {@code invalidSettings()} ({@code name=value})
 * fails the start naming the property ({@link Wiring#assertRejected}).
 *
 * <pre>
 * class LensFooAutoConfigurationTest implements WiringChecks {
 *
 *     private final ApplicationContextRunner runner = Wiring.brokerless(LensFooAutoConfiguration.class);
 *
 *     public ApplicationContextRunner runner() {
 *         return runner;
 *     }
 *
 *     static Stream&lt;Replaceable&gt; replaceables() { ... }
 *
 *     static Stream&lt;String&gt; invalidSettings() { ... }
 * }
 * </pre>
 */
public interface WiringChecks {

    /** The context of the auto-configurations under test. */
    ApplicationContextRunner runner();

    @ParameterizedTest
    @MethodSource("replaceables")
    default void anApplicationsOwnBeanWins(Replaceable bean) {
        bean.assertBacksOff(runner());
    }

    @ParameterizedTest
    @MethodSource("invalidSettings")
    default void anInvalidSettingFailsTheStartNamingTheProperty(String setting) {
        Wiring.assertRejected(runner(), setting);
    }
}
