package io.nemolens.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A JVM the bench starts beside itself, on the same {@code java} executable and class path, and talks to in lines:
 * one request a line on its stdin, answers {@code KEYWORD rest} on its stdout. What else it writes on stdout is
 * passed on to the bench's, prefixed with its name; the last {@value #STDERR_LINES} lines of its stderr are kept
 * for the message of a failure. An answer that does not come in time, or a child that ends before it answers,
 * fails the request with that message: the bench never waits for a dead child. The child is destroyed when this
 * is closed, and by a shutdown hook when the bench's JVM ends first.
 */
final class ChildJvm implements AutoCloseable {

    private static final int STDERR_LINES = 40;

    private final String name;
    private final Process process;
    private final Writer requests;
    /** The child's stdout lines; empty once it ended. */
    private final BlockingQueue<Optional<String>> stdout = new LinkedBlockingQueue<>();

    private final Deque<String> stderrTail = new ArrayDeque<>();
    private final Thread shutdownHook;
    private @Nullable Thread stderrReader;

    private ChildJvm(String name, Process process) {
        this.name = name;
        this.process = process;
        this.requests = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        this.shutdownHook = new Thread(process::destroyForcibly, name + "-destroyer");
    }

    /**
     * Starts {@code mainClass} with {@code args} in a new JVM: this JVM's {@code java}, {@code jvmOptions}, this
     * JVM's class path.
     *
     * @param name what messages call it
     */
    static ChildJvm start(String name, List<String> jvmOptions, Class<?> mainClass, List<String> args)
            throws IOException {
        String java = ProcessHandle.current()
                .info()
                .command()
                .orElseThrow(() -> new IllegalStateException("this JVM's java executable is not known"));
        List<String> command = new ArrayList<>();
        command.add(java);
        command.addAll(jvmOptions);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(mainClass.getName());
        command.addAll(args);
        ChildJvm child = new ChildJvm(name, new ProcessBuilder(command).start());
        Runtime.getRuntime().addShutdownHook(child.shutdownHook);
        child.drain(child.process.getInputStream(), "stdout", line -> child.stdout.add(Optional.of(line)));
        child.stderrReader = child.drain(child.process.getErrorStream(), "stderr", child::keepStderr);
        return child;
    }

    /** The child's process id. */
    long pid() {
        return process.pid();
    }

    /** Sends {@code request} as one line. */
    void send(String request) throws IOException {
        try {
            requests.write(request + "\n");
            requests.flush();
        } catch (IOException e) {
            throw failure("took no request (" + request + ")", e);
        }
    }

    /**
     * The rest of the next stdout line that starts with {@code keyword} and a space, waiting at most
     * {@code timeout}; the lines before it go to this JVM's stdout.
     *
     * @param what what the child was doing, for the message of a failure
     */
    String await(String keyword, Duration timeout, String what) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            Optional<String> next = stdout.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (next == null) {
                throw failure("did not answer " + what + " within " + timeout.toSeconds() + " s", null);
            }
            if (next.isEmpty()) {
                throw failure("ended before it answered " + what, null);
            }
            String line = next.get();
            if (line.startsWith(keyword + " ")) {
                return line.substring(keyword.length() + 1);
            }
            System.out.printf(Locale.ROOT, "[%s] %s%n", name, line);
        }
    }

    /** Ends the child: closes its stdin, waits 10 s for it to end, then destroys it. */
    @Override
    public void close() {
        try {
            requests.close();
        } catch (IOException e) {
            // it is gone already
        }
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // this JVM is shutting down: the hook runs anyway, on a process that has ended
        }
    }

    private IllegalStateException failure(String what, @Nullable IOException cause) {
        // a child that failed is not left running; one that ended is reaped, for its exit status
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        String message = name + " (pid " + process.pid() + ") " + what + "; " + ended() + "; its stderr ended with:"
                + (stderrLines().isEmpty() ? " nothing" : "\n" + String.join("\n", stderrLines()));
        return cause == null ? new IllegalStateException(message) : new IllegalStateException(message, cause);
    }

    private String ended() {
        Optional<Integer> status = process.isAlive() ? Optional.empty() : Optional.of(process.exitValue());
        return status.map(s -> "it exited with status " + s + (s > 128 ? " (signal " + (s - 128) + ")" : ""))
                .orElse("it is still running");
    }

    private List<String> stderrLines() {
        // once the child has ended, the stderr reader may still be adding its last lines
        Thread reader = stderrReader;
        if (reader != null && !process.isAlive()) {
            try {
                reader.join(1_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        synchronized (stderrTail) {
            return List.copyOf(stderrTail);
        }
    }

    private void keepStderr(String line) {
        synchronized (stderrTail) {
            if (stderrTail.size() == STDERR_LINES) {
                stderrTail.removeFirst();
            }
            stderrTail.addLast(line);
        }
    }

    private interface LineSink {
        void accept(String line);
    }

    /** Starts a daemon thread that hands each line of {@code stream} to {@code sink}; returns it. */
    private Thread drain(InputStream stream, String which, LineSink sink) {
        Thread reader = new Thread(
                () -> {
                    try (BufferedReader in =
                            new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                        for (String line = in.readLine(); line != null; line = in.readLine()) {
                            sink.accept(line);
                        }
                    } catch (IOException e) {
                        // destroyed: the end of the stream
                    } finally {
                        if (which.equals("stdout")) {
                            stdout.add(Optional.empty());
                        }
                    }
                },
                name + "-" + which);
        reader.setDaemon(true);
        reader.start();
        return reader;
    }
}
