package io.nemolens.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A runnable jar run as a user runs it, {@code java -jar JAR ARGS...}, with a bounded wait, so that a command
 * that never ends fails its test instead of hanging it; its output is read from a file outside the working
 * folder (so the folder holds only what the jar wrote).
 */
public final class JarRun {

    /** How the run ended: whether it exited within the wait, its exit code (-1 if not) and its output. */
    public record Outcome(boolean exited, int exitCode, String output) {}

    private JarRun() {}

    /** Runs the jar in {@code workingDir} and waits at most {@code timeout}; a run still going then is killed. */
    public static Outcome run(Path jar, List<String> args, Path workingDir, Duration timeout)
            throws IOException, InterruptedException {
        return run(ChildJvm.jar(jar).args(args).workingDir(workingDir), timeout);
    }

    /**
     * Runs the child JVM (its output goes to a file of this method's) and waits at most {@code timeout}; a run
     * still going then is killed.
     */
    public static Outcome run(ChildJvm jvm, Duration timeout) throws IOException, InterruptedException {
        Path log = Files.createTempFile("lens-command", ".log"); // outside the working folder
        try {
            Process process = jvm.output(log).start();
            boolean exited = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!exited) {
                process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
            return new Outcome(exited, exited ? process.exitValue() : -1, Files.readString(log));
        } finally {
            Files.deleteIfExists(log);
        }
    }
}
