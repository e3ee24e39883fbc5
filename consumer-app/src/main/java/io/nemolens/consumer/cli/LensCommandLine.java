package io.nemolens.consumer.cli;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Runs a {@link LensCommand} when the first argument names one; otherwise the application runs as the
 * consumer. Every argument after the command's name is the command's own; Spring properties (broker
 * address, {@code lens.topology.*}) come from environment variables, {@code -D} system properties or
 * {@code application.yml}, as for the consumer. Commands do not declare the topology
 * ({@code lens.topology.declare} defaults to {@code false} for them): they only check it.
 */
public final class LensCommandLine {

    /** The words that select a command rather than the consumer. */
    public static final Set<String> COMMANDS = Set.of("poison", "help");

    private LensCommandLine() {}

    /** Whether these arguments ask for a command. */
    public static boolean isCommand(String[] args) {
        return args.length > 0 && COMMANDS.contains(args[0]);
    }

    /** Starts a context without web server and listener, runs the command, returns its exit code. */
    public static int run(Class<?> application, String[] args, PrintStream out) {
        SpringApplication app = new SpringApplication(application);
        app.setWebApplicationType(WebApplicationType.NONE);
        // a command reads and moves messages of a topology the service declared: it never declares, so an
        // operator's broker user needs no configure permission (observability/rabbitmq/README.md)
        app.setDefaultProperties(Map.of(
                "lens.consumer.enabled",
                "false",
                "lens.topology.declare",
                "false",
                "spring.main.banner-mode",
                "off",
                "logging.level.root",
                "WARN"));
        try (ConfigurableApplicationContext context = app.run()) {
            Map<String, LensCommand> commands = context.getBeansOfType(LensCommand.class);
            String name = args[0];
            LensCommand command = commands.values().stream()
                    .filter(c -> c.name().equals(name))
                    .findFirst()
                    .orElse(null);
            if (command == null) {
                usage(commands.values().stream().toList(), out);
                return "help".equals(name) ? 0 : 2;
            }
            try {
                return command.run(Arrays.asList(args).subList(1, args.length), out);
            } catch (Exception e) {
                out.println("error: " + e.getMessage());
                return 1;
            }
        }
    }

    private static void usage(List<LensCommand> commands, PrintStream out) {
        out.println("usage: java -jar lens-consumer-app-exec.jar [COMMAND [ARGS]]");
        out.println("without a command the consumer runs. Commands:");
        commands.stream()
                .sorted((a, b) -> a.name().compareTo(b.name()))
                .forEach(c -> out.printf("  %-10s %s%n", c.name(), c.description()));
    }
}
