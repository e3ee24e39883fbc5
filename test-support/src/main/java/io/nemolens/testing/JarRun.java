package io.nemolens.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A runnable jar run as a user runs it: {@code java -jar JAR ARGS...} in a working folder of the test's
 * choosing, its output in a file outside that folder (so the folder holds only what the jar wrote), and a
 * bounded wait, so that a command that never ends fails its test instead of hanging it.
 */
public final class JarRun {

    /** How the run ended: whether it exited within the wait, its exit code (-1 if not) and its output. */
    public record Outcome(boolean exited, int exitCode, String output) {}

    private JarRun() {}

    /** Runs the jar and waits at most {@code timeout}; a run still going then is killed. */
    public static Outcome run(Path jar, List<String> args, Path workingDir, Duration timeout)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(javaBinary(), "-jar", jar.toString()));
        command.addAll(args);
        Path log = Files.createTempFile("lens-command", ".log"); // outside the working folder
        try {
            Process process = new ProcessBuilder(command)
                    .directory(workingDir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            boolean exited = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!exited) {
                process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
            return new Outcome(exited, exited ? process.exitValue() : -1, Files.readString(log));
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /** The {@code java} of the JVM running the tests. */
    public static String javaBinary() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
