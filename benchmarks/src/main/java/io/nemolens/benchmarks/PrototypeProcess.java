package io.nemolens.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.rabbitmq.client.ConnectionFactory;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The bare prototype ({@link BarePrototype}, issue 20's yardstick) as a user would run it: in a JVM of its own,
 * started by the end-to-end bench ({@link PrototypeBench}) on the bench's {@code java} and class path with
 * {@code -Xmx1g} and the JVM's default collector, consuming one quorum queue, alive across the bench's passes so
 * that its JIT stays warm as a long-running prototype's would (issue 35).
 *
 * <p>Its protocol is one line per request on stdin and one line per answer on stdout, {@code KEYWORD {json}}:
 * at start it answers {@code READY} ({@link Ready}); {@code ROUND n} runs the prototype on {@code n} messages of
 * the queue into a temporary folder, deleted after, and answers {@code ROUND} ({@link Round}: its wall time and
 * the JIT compiler's, for the bench's warm-up rule); {@code RUN n} does the same after a full collection, reading
 * the heap after each of the run's collections and its own CPU time, and answers {@code RESULT} ({@link Measured}).
 * The end of stdin ends it; so does the end of the process that started it. Any failure prints its stack trace on
 * stderr and exits with status 1, which the bench reports with the end of stderr.
 *
 * <p>Usage: {@code PrototypeProcess AMQP-URI QUEUE}.
 */
public final class PrototypeProcess {

    /** Its first line, once its JVM is up: {@code READY {json}} ({@link Ready}). */
    static final String READY = "READY";

    /** A warm-up round's request and answer. */
    static final String ROUND = "ROUND";

    /** A measured run's request. */
    static final String RUN = "RUN";

    /** A measured run's answer. */
    static final String RESULT = "RESULT";

    /** The JSON of the answers, both sides. */
    static final ObjectMapper JSON = new ObjectMapper();

    /**
     * The JVM that answers.
     *
     * @param collectors its garbage collectors' names ({@code G1 Young Generation}, ...)
     */
    record Ready(long pid, String javaVersion, long maxHeapMiB, List<String> collectors) {}

    /** A warm-up round: its wall time, and how much of it the JIT compiler worked. */
    record Round(long millis, long jitMillis) {}

    /** A measured run, its heap after GC, and this JVM's CPU time during it. */
    record Measured(BarePrototype.Result result, HeapAfterGc.Reading heap, double cpuSeconds) {}

    private PrototypeProcess() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: PrototypeProcess AMQP-URI QUEUE");
        }
        // a child that outlives the bench would consume the next bench's messages: it ends with its parent
        ProcessHandle.current().parent().ifPresent(parent -> {
            Thread watcher = new Thread(
                    () -> {
                        parent.onExit().join();
                        Runtime.getRuntime().halt(2);
                    },
                    "lens-prototype-parent-watcher");
            watcher.setDaemon(true);
            watcher.start();
        });
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(args[0]);
        String queue = args[1];
        answer(
                READY,
                new Ready(
                        ProcessHandle.current().pid(),
                        System.getProperty("java.version"),
                        Runtime.getRuntime().maxMemory() >> 20,
                        ManagementFactory.getGarbageCollectorMXBeans().stream()
                                .map(GarbageCollectorMXBean::getName)
                                .toList()));
        BufferedReader requests = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        for (String line = requests.readLine(); line != null; line = requests.readLine()) {
            String[] request = line.trim().split(" ", -1);
            if (request.length != 2) {
                throw new IllegalArgumentException("not a request: " + line);
            }
            int messages = Integer.parseInt(request[1]);
            switch (request[0]) {
                case ROUND -> {
                    long jit0 = jit.getTotalCompilationTime();
                    long t0 = System.nanoTime();
                    inTemporaryFolder(factory, queue, messages);
                    answer(
                            ROUND,
                            new Round((System.nanoTime() - t0) / 1_000_000, jit.getTotalCompilationTime() - jit0));
                }
                case RUN -> answer(RESULT, measure(factory, queue, messages));
                default -> throw new IllegalArgumentException("not a request: " + line);
            }
        }
    }

    /** One measured run, from a full collection on, into a temporary folder. */
    private static Measured measure(ConnectionFactory factory, String queue, int messages) throws Exception {
        HeapAfterGc heap = HeapAfterGc.start();
        long cpu0 = ProcessCpu.ownNanos();
        BarePrototype.Result result = inTemporaryFolder(factory, queue, messages);
        double cpuSeconds = (ProcessCpu.ownNanos() - cpu0) / 1e9;
        return new Measured(result, heap.stop(), cpuSeconds);
    }

    private static BarePrototype.Result inTemporaryFolder(ConnectionFactory factory, String queue, int messages)
            throws Exception {
        Path folder = Files.createTempDirectory("lens-bench-prototype");
        try {
            return BarePrototype.run(factory, queue, messages, folder);
        } finally {
            ArchiveFiles.delete(folder);
        }
    }

    private static void answer(String keyword, Object answer) throws Exception {
        System.out.println(keyword + " " + JSON.writeValueAsString(answer));
        System.out.flush();
        if (System.out.checkError()) {
            // the bench is gone
            throw new IllegalStateException(
                    String.format(Locale.ROOT, "could not answer %s: stdout is closed", keyword));
        }
    }
}
