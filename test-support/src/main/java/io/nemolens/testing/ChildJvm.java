package io.nemolens.testing;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The one way tests start a child JVM: the {@code java} of the JVM running the tests, its options, a jar
 * ({@code -jar}) or a main class on the tests' class path or a given one, the program's arguments; optionally under a
 * launcher that execs it (such as {@code unshare ... sh -c 'exec "$@"'}), in a working folder of the test's
 * choosing, with environment variables added, and its output (standard output and error together) in a
 * file. Standard input is closed at once. {@link JarRun} and {@link ConsumerProcess} start theirs with it.
 *
 * <pre>
 * Process p = ChildJvm.jar(jar).options(List.of("-Xmx256m")).args(List.of("--server.port=0")).output(log).start();
 * </pre>
 */
public final class ChildJvm {

    private final List<String> program;
    private final List<String> launcher = new ArrayList<>();
    private final List<String> options = new ArrayList<>();
    private final List<String> args = new ArrayList<>();
    private final Map<String, String> environment = new LinkedHashMap<>();
    private @Nullable Path workingDir;
    private @Nullable Path output;

    private ChildJvm(List<String> program) {
        this.program = program;
    }

    /** {@code java -jar JAR}. */
    public static ChildJvm jar(Path jar) {
        return new ChildJvm(List.of("-jar", jar.toString()));
    }

    /** {@code java -cp CLASSPATH MAIN}, with these jars and folders as the class path. */
    public static ChildJvm mainClass(String main, List<Path> classPath) {
        List<String> entries = new ArrayList<>();
        for (Path entry : classPath) {
            entries.add(entry.toString());
        }
        return new ChildJvm(List.of("-cp", String.join(File.pathSeparator, entries), main));
    }

    /** The {@code java} of the JVM running the tests. */
    public static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    /** What the command line runs under, first on it; the launcher must exec {@code java} (same pid). */
    public ChildJvm launcher(List<String> prefix) {
        launcher.addAll(prefix);
        return this;
    }

    /** Options of the JVM itself, such as {@code -Xmx256m}. */
    public ChildJvm options(List<String> jvmOptions) {
        options.addAll(jvmOptions);
        return this;
    }

    /** The program's arguments, after the jar or main class. */
    public ChildJvm args(List<String> programArgs) {
        args.addAll(programArgs);
        return this;
    }

    /** Environment variables added to the tests' own. */
    public ChildJvm environment(Map<String, String> variables) {
        environment.putAll(variables);
        return this;
    }

    /** The working folder (the tests' own by default). */
    public ChildJvm workingDir(Path dir) {
        workingDir = dir;
        return this;
    }

    /**
     * The file standard output and error go to (its folder is made); without one they go to
     * {@link Process#getInputStream()}, which the test must read.
     */
    public ChildJvm output(Path file) {
        output = file;
        return this;
    }

    /** The whole command line: launcher, {@code java}, options, jar or main class, arguments. */
    public List<String> command() {
        List<String> command = new ArrayList<>(launcher);
        command.add(javaBinary());
        command.addAll(options);
        command.addAll(program);
        command.addAll(args);
        return command;
    }

    /** Starts the process. */
    public Process start() throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command()).redirectErrorStream(true);
        builder.environment().putAll(environment);
        if (workingDir != null) {
            builder.directory(workingDir.toFile());
        }
        if (output != null) {
            Path parent = output.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            builder.redirectOutput(output.toFile());
        }
        Process process = builder.start();
        process.getOutputStream().close();
        return process;
    }
}
