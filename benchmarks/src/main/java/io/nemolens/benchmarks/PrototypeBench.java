package io.nemolens.benchmarks;

import com.rabbitmq.client.Channel;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;

/**
 * The bare prototype's side of the end-to-end bench (issues 20 and 35): a quorum queue of its own on the same
 * broker, filled with the same messages as the project's queue before each of its runs, and the prototype in a JVM
 * of its own ({@link PrototypeProcess}: this JVM's {@code java} and class path, {@value #HEAP}, the JVM's default
 * collector), started once and kept for the invocation, so that it is warmed up once and its measured runs, pass
 * by pass, run on code its own JIT compiled, as a user's long-running prototype would. Its spans/s, ack latency,
 * heap after GC, files and CPU time come from the child; the broker's CPU time is read here around each run.
 *
 * <p>Issue 35 measured the in-process prototype this replaces (in the bench's JVM, its 512 MB heap and parallel
 * collector, beside the service's contexts) at 136,000 spans/s where the same code in its own JVM ran at
 * 156,000-198,000.
 */
final class PrototypeBench implements AutoCloseable {

    /** The child's heap. */
    static final String HEAP = "-Xmx1g";

    /** What the output calls the prototype's figures. */
    static final String LABEL = "standalone prototype (own JVM, " + HEAP + ", default GC)";

    /** A run in the child fails by itself after 5 minutes ({@link BarePrototype}); its answer may take longer. */
    private static final Duration ANSWER_TIMEOUT = Duration.ofMinutes(6);

    private static final Duration START_TIMEOUT = Duration.ofMinutes(1);

    private final Channel ch;
    private final String queue;
    private final ChildJvm child;
    private final PrototypeProcess.Ready ready;

    /**
     * One measured run.
     *
     * @param bytes the messages' bodies
     * @param cpuSeconds the child JVM's CPU time during the run
     * @param brokerCpuSeconds the broker's ({@code beam.smp} on this machine), NaN when not seen
     */
    record Run(
            BarePrototype.Result result,
            HeapAfterGc.Reading heap,
            long bytes,
            double cpuSeconds,
            double brokerCpuSeconds) {}

    private PrototypeBench(Channel ch, String queue, ChildJvm child, PrototypeProcess.Ready ready) {
        this.ch = ch;
        this.queue = queue;
        this.child = child;
        this.ready = ready;
    }

    /**
     * Declares the prototype's queue (quorum, as the project's processing queue) through {@code ch}, the bench's
     * publishing channel (confirms on), and starts the prototype's JVM on it; returns once that JVM answers.
     *
     * @param amqpUri the broker, for the child
     */
    static PrototypeBench start(String amqpUri, Channel ch) throws Exception {
        String queue = "lens-bench." + UUID.randomUUID().toString().substring(0, 8) + "-prototype";
        ch.queueDeclare(queue, true, false, false, Map.of("x-queue-type", "quorum"));
        @Nullable ChildJvm child = null;
        try {
            child = ChildJvm.start(
                    "the standalone prototype's JVM", List.of(HEAP), PrototypeProcess.class, List.of(amqpUri, queue));
            PrototypeProcess.Ready ready = PrototypeProcess.JSON.readValue(
                    child.await(PrototypeProcess.READY, START_TIMEOUT, "its start"), PrototypeProcess.Ready.class);
            return new PrototypeBench(ch, queue, child, ready);
        } catch (Exception | Error e) {
            if (child != null) {
                child.close();
            }
            ch.queueDelete(queue);
            throw e;
        }
    }

    /** The prototype's JVM. */
    PrototypeProcess.Ready jvm() {
        return ready;
    }

    /** The prototype's queue. */
    String queue() {
        return queue;
    }

    /** The child's process id. */
    long pid() {
        return child.pid();
    }

    /**
     * Rounds of {@code perRound} messages ({@code bodies(from)} on), not measured, at least three, until the child's
     * JIT compiler worked less than 5 % of two rounds in a row (the project's warm-up rule), at most
     * {@code maxRounds}. Returns how many messages it took.
     */
    int warmUp(String tag, IntFunction<byte[]> bodies, int from, int perRound, int maxRounds) throws Exception {
        WarmUpRule rule = new WarmUpRule(tag);
        int sent = 0;
        for (int round = 0; round < maxRounds; round++) {
            BenchPublishing.publish(ch, "", queue, bodies, from + sent, from + sent + perRound);
            sent += perRound;
            child.send(PrototypeProcess.ROUND + " " + perRound);
            PrototypeProcess.Round r = PrototypeProcess.JSON.readValue(
                    child.await(PrototypeProcess.ROUND, ANSWER_TIMEOUT, "warm-up round " + (round + 1)),
                    PrototypeProcess.Round.class);
            if (rule.steadyAfter(round, perRound, r.millis(), r.jitMillis())) {
                break;
            }
        }
        return sent;
    }

    /** Fills the queue with messages {@code bodies(first)} to {@code bodies(first + count - 1)}, then runs on them. */
    Run measure(IntFunction<byte[]> bodies, int first, int count) throws Exception {
        long bytes = BenchPublishing.publish(ch, "", queue, bodies, first, first + count);
        ProcessCpu broker0 = ProcessCpu.now(ProcessCpu.BROKER);
        child.send(PrototypeProcess.RUN + " " + count);
        PrototypeProcess.Measured m = PrototypeProcess.JSON.readValue(
                child.await(PrototypeProcess.RESULT, ANSWER_TIMEOUT, "a measured run of " + count + " messages"),
                PrototypeProcess.Measured.class);
        ProcessCpu broker1 = ProcessCpu.now(ProcessCpu.BROKER);
        long left = ch.messageCount(queue);
        if (left != 0) {
            throw new IllegalStateException("the bare prototype left " + left + " messages in " + queue);
        }
        if (m.result().messages() != count) {
            throw new IllegalStateException(
                    "the bare prototype ran on " + m.result().messages() + " messages, not " + count);
        }
        return new Run(
                m.result(),
                m.heap(),
                bytes,
                m.cpuSeconds(),
                broker0.seen() && broker1.seen() ? broker1.secondsSince(broker0) : Double.NaN);
    }

    /** Ends the child, then deletes the queue. */
    @Override
    public void close() throws IOException {
        try {
            child.close();
        } finally {
            ch.queueDelete(queue);
        }
    }
}
