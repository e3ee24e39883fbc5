package io.nemolens.app.cli;

import java.io.PrintStream;
import java.util.List;

/**
 * A command of the application jar ({@code java -jar lens-consumer-app-exec.jar <name> [args]}), run
 * in a Spring context without a web server and without the listener. Register one as a bean.
 */
public interface LensCommand {

    /** The word that selects the command, e.g. {@code poison}. */
    String name();

    /** One line for the usage text. */
    String description();

    /**
     * Runs the command.
     *
     * @param args the arguments after the command's name
     * @param out where to print what a person reads
     * @return the process exit code: 0 success, 1 failure, 2 usage error
     */
    int run(List<String> args, PrintStream out) throws Exception;
}
