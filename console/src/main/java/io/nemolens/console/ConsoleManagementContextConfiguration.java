package io.nemolens.console;

import io.nemolens.runwatch.RunWatch;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextType;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;

/**
 * Puts the console's controller in the management context: on the management server, which is the
 * application's own server unless {@code management.server.port} gives it a port of its own (then the
 * console is there, and not on the public port). Same conditions as {@link LensConsoleAutoConfiguration}.
 */
@ManagementContextConfiguration(value = ManagementContextType.ANY, proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnProperty(prefix = "lens.console", name = "enabled", havingValue = "true", matchIfMissing = true)
@ConditionalOnProperty(prefix = "lens.consumer", name = "enabled", havingValue = "true", matchIfMissing = true)
@ConditionalOnProperty(prefix = "lens.poison.index", name = "enabled", havingValue = "true", matchIfMissing = true)
public class ConsoleManagementContextConfiguration {

    @Bean
    @ConditionalOnMissingBean
    ConsoleController lensConsoleController(
            ConsoleService console, FlowSampler sampler, LensConsoleProperties properties) {
        return new ConsoleController(console, sampler, properties);
    }

    @Bean
    @ConditionalOnMissingBean
    RunsController lensConsoleRunsController(ObjectProvider<RunWatch> watch, FlowSampler sampler) {
        return new RunsController(watch, sampler);
    }
}
