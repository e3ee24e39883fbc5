package io.nemolens.generator;

import io.nemolens.topology.LensTopology;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.amqp.rabbit.connection.ConnectionNameStrategy;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * The generator's runnable ({@code java -jar lens-generator-exec.jar [OPTIONS]}): a Spring context without
 * web server, so that the broker ({@code spring.rabbitmq.*}) and the topology ({@code lens.topology.*},
 * declared when the generator connects) are configured exactly as for the consumer, then
 * {@link GenerateCommand} with the arguments, and the process exits with its code. Spring properties are
 * given as for the service: {@code --name=value} with a dot in the name, environment variables, {@code -D}.
 * The broker connection is named {@code lens-generator <run id>} (the management UI's client-provided name).
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class GeneratorApplication {

    /**
     * The generator's defaults, below every setting a user gives (command line, environment, {@code -D}): in code,
     * not in an {@code application.yml}, which its jar would put on the class path of every module whose tests use
     * the generator. The broker is Spring's default one, {@code localhost:5672} as {@code guest}.
     */
    static final Map<String, Object> DEFAULTS = Map.of(
            "spring.application.name", "nemo-lens-generator",
            "spring.main.banner-mode", "off",
            "logging.level.root", "WARN",
            // a broker that does not answer is reported within 10 s, not the client's 60
            "spring.rabbitmq.connection-timeout", "10s",
            // a cluster's addresses tried in a random order, as the service tries them
            "spring.rabbitmq.address-shuffle-mode", "random");

    /** The client-provided name of the generator's broker connection. */
    static final String CONNECTION_NAME_PREFIX = "lens-generator ";

    public static void main(String[] args) {
        System.exit(run(args, System.out));
    }

    /** Runs the generator with these arguments in a context of its own; returns the exit code. */
    public static int run(String[] args, PrintStream out) {
        Instant start = Instant.now();
        String runId;
        try {
            runId = GenerateOptions.parse(List.of(args), GenerateCommand.defaultRunId(start))
                    .runId();
        } catch (IllegalArgumentException e) {
            runId = GenerateCommand.defaultRunId(start); // the command reports the usage error
        }
        String connectionName = CONNECTION_NAME_PREFIX + runId;
        SpringApplication app = new SpringApplication(GeneratorApplication.class);
        app.setWebApplicationType(WebApplicationType.NONE);
        app.setDefaultProperties(DEFAULTS);
        app.addInitializers(context -> context.getBeanFactory()
                .registerSingleton("lensGeneratorConnectionName", (ConnectionNameStrategy) cf -> connectionName));
        try (ConfigurableApplicationContext context = app.run(args)) {
            ConnectionFactory connectionFactory = context.getBean(ConnectionFactory.class);
            LensTopology topology = context.getBean(LensTopology.class);
            GenerateCommand command = new GenerateCommand(
                    () -> connectionFactory, topology.exchangeName(), Clock.fixed(start, ZoneOffset.UTC));
            try {
                return command.run(List.of(args), out);
            } catch (Exception e) {
                out.println("generate: " + e.getMessage());
                return 1;
            }
        }
    }
}
