package io.nemolens.app.cli;

import io.nemolens.poison.PoisonInspector;
import io.nemolens.poison.PoisonReplayer;
import java.util.Map;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The service's commands, as beans {@link LensCommandLine} finds. */
@Configuration(proxyBeanMethods = false)
public class LensCommands {

    /**
     * The service's commands by name, with the line the usage shows: known before any context starts, so a
     * word that is no command, or {@code --help}, is answered at once, with or without a broker.
     */
    static final Map<String, String> DESCRIPTIONS = Map.of(PoisonCommand.NAME, PoisonCommand.DESCRIPTION);

    @Bean
    @ConditionalOnMissingBean
    PoisonCommand poisonCommand(PoisonInspector inspector, PoisonReplayer replayer) {
        return new PoisonCommand(inspector, replayer);
    }
}
