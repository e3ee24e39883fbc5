package io.nemolens.app.cli;

import io.nemolens.poison.PoisonInspector;
import io.nemolens.poison.PoisonReplayer;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The service's commands, as beans {@link LensCommandLine} finds. */
@Configuration(proxyBeanMethods = false)
public class LensCommands {

    @Bean
    @ConditionalOnMissingBean
    PoisonCommand poisonCommand(PoisonInspector inspector, PoisonReplayer replayer) {
        return new PoisonCommand(inspector, replayer);
    }
}
