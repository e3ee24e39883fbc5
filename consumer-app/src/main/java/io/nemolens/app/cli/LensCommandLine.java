package io.nemolens.app.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.MapPropertySource;

/**
 * Runs a {@link LensCommand} when there is an argument that is not a Spring property: the first such argument
 * names the command. Without one the application runs as the consumer. A name that is no command (a typo,
 * {@code generate}, which is the generator's own jar, or {@code --help}) is a usage error: the commands are
 * listed and the exit code is 2; the service never starts on a word it does not know.
 *
 * <p>One command-line convention for the service and every command: an argument {@code --name=value}
 * whose name contains a dot ({@code --spring.rabbitmq.host=rabbit}, {@code --lens.topology.exchange=x})
 * is a Spring property, wherever it stands, exactly as for the service; every other argument after the
 * command's name is the command's own. Environment variables, {@code -D} system properties and
 * an {@code application.yml} of the user's work as for the service.
 *
 * <p>A command runs in a context without web server, listener, archive or console, whatever the
 * configuration says: it consumes nothing and writes no files. Commands do not declare the topology
 * ({@code lens.topology.declare} defaults to {@code false} for them): they only check it, so an operator's
 * broker user needs no configure permission.
 */
public final class LensCommandLine {

    /**
     * What a command's context always runs with, above every other property source: no listener
     * (nothing consumed), no archive (no spool, no lock files, no folders in the working directory).
     */
    static final Map<String, Object> COMMAND_PROPERTIES =
            Map.of("lens.consumer.enabled", "false", "lens.archive.enabled", "false");

    private LensCommandLine() {}

    /** Spring Boot's own switches without a dot, which start the service with more logging. */
    private static final Set<String> SPRING_SWITCHES = Set.of("--debug", "--trace");

    /** Whether these arguments ask for a command (a known one or not): any argument but a Spring property. */
    public static boolean isCommand(String[] args) {
        for (String arg : args) {
            if (!isSpringProperty(arg)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether an argument is for Spring: {@code --name=value} with a dot in the name, or one of Spring Boot's
     * switches {@code --debug} and {@code --trace}.
     */
    public static boolean isSpringProperty(String arg) {
        if (SPRING_SWITCHES.contains(arg)) {
            return true;
        }
        int eq = arg.indexOf('=');
        return arg.startsWith("--") && eq > 2 && arg.lastIndexOf('.', eq) > 2;
    }

    /**
     * Runs the command the arguments name and returns its exit code. A word that is no command, and
     * {@code help}, {@code --help} or {@code -h}, get the usage at once (exit 2, or 0 for help), before any
     * context starts: no broker is needed to be told how to call the jar. A command runs in a context without
     * web server and listener.
     */
    public static int run(Class<?> application, String[] args, PrintStream out) {
        List<String> springArgs = new ArrayList<>();
        List<String> commandArgs = new ArrayList<>();
        for (String arg : args) {
            (isSpringProperty(arg) ? springArgs : commandArgs).add(arg);
        }
        String name = commandArgs.get(0);
        if (!LensCommands.DESCRIPTIONS.containsKey(name)) {
            boolean help = name.equals("help") || name.equals("--help") || name.equals("-h");
            if (!help) {
                out.println("unknown command: " + name);
            }
            usage(out);
            return help ? 0 : 2;
        }
        SpringApplication app = new SpringApplication(application);
        app.setWebApplicationType(WebApplicationType.NONE);
        // a command reads and moves messages of a topology the service declared: it never declares by default,
        // so an operator's broker user needs no configure permission (observability/rabbitmq/README.md)
        app.setDefaultProperties(Map.of(
                "lens.topology.declare", "false", "spring.main.banner-mode", "off", "logging.level.root", "WARN"));
        app.addInitializers(context -> context.getEnvironment()
                .getPropertySources()
                .addFirst(new MapPropertySource("lensCommand", COMMAND_PROPERTIES)));
        try (ConfigurableApplicationContext context = app.run(springArgs.toArray(String[]::new))) {
            LensCommand command = context.getBeansOfType(LensCommand.class).values().stream()
                    .filter(c -> c.name().equals(name))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("no bean for the command " + name));
            try {
                return command.run(commandArgs.subList(1, commandArgs.size()), out);
            } catch (Exception e) {
                out.println("error: " + e.getMessage());
                return 1;
            }
        }
    }

    private static void usage(PrintStream out) {
        out.println(
                "usage: java -jar lens-consumer-app-exec.jar [--spring.or.lens.property=VALUE ...] [COMMAND [ARGS]]");
        out.println("without a command the consumer runs. Commands:");
        new TreeMap<>(LensCommands.DESCRIPTIONS)
                .forEach((name, description) -> out.printf("  %-10s %s%n", name, description));
        out.println("Spring properties (--name=value, a dot in the name) work with every command, as for the service.");
    }
}
