package io.nemolens.generator;

import io.nemolens.topology.LensTopology;
import java.io.PrintStream;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

/**
 * The generator's runnable ({@code java -jar lens-generator-exec.jar [OPTIONS]}): a Spring context without
 * web server, so that the broker ({@code spring.rabbitmq.*}) and the topology ({@code lens.topology.*},
 * declared when the generator connects) are configured exactly as for the consumer, then
 * {@link GenerateCommand} with the arguments, and the process exits with its code.
 */
@Configuration(proxyBeanMethods = false)
@EnableAutoConfiguration
public class GeneratorApplication {

    public static void main(String[] args) {
        System.exit(run(args, System.out));
    }

    /** Runs the generator with these arguments in a context of its own; returns the exit code. */
    public static int run(String[] args, PrintStream out) {
        SpringApplication app = new SpringApplication(GeneratorApplication.class);
        app.setWebApplicationType(WebApplicationType.NONE);
        app.setDefaultProperties(Map.of("spring.main.banner-mode", "off", "logging.level.root", "WARN"));
        try (ConfigurableApplicationContext context = app.run(args)) {
            ConnectionFactory connectionFactory = context.getBean(ConnectionFactory.class);
            LensTopology topology = context.getBean(LensTopology.class);
            GenerateCommand command =
                    new GenerateCommand(() -> connectionFactory, topology.exchangeName(), Clock.systemUTC());
            try {
                return command.run(List.of(args), out);
            } catch (Exception e) {
                out.println("generate: " + e.getMessage());
                return 1;
            }
        }
    }
}
