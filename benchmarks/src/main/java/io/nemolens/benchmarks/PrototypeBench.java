package io.nemolens.benchmarks;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import java.util.function.IntFunction;

/**
 * The bare prototype's side of the end-to-end bench (issue 20): a quorum queue of its own on the same broker,
 * filled with the same messages as the project's queue before each of its runs, its warm-up, and its measured
 * runs ({@link BarePrototype}), each into a fresh folder deleted after.
 *
 * @param ch the bench's publishing channel (confirms on)
 */
record PrototypeBench(ConnectionFactory factory, Channel ch, String queue) implements AutoCloseable {

    /**
     * Declares the prototype's queue (quorum, as the project's processing queue) through {@code ch}, the bench's
     * publishing channel (confirms on).
     */
    static PrototypeBench declare(ConnectionFactory factory, Channel ch) throws IOException {
        String queue = "lens-bench." + UUID.randomUUID().toString().substring(0, 8) + "-prototype";
        ch.queueDeclare(queue, true, false, false, Map.of("x-queue-type", "quorum"));
        return new PrototypeBench(factory, ch, queue);
    }

    /**
     * One measured run.
     *
     * @param bytes the messages' bodies
     * @param cpuSeconds this JVM's CPU time during the run
     * @param brokerCpuSeconds the broker's ({@code beam.smp} on this machine), NaN when not seen
     */
    record Run(
            BarePrototype.Result result,
            HeapAfterGc.Reading heap,
            long bytes,
            double cpuSeconds,
            double brokerCpuSeconds) {}

    /**
     * Rounds of {@code perRound} messages ({@code bodies(from)} on), not measured, at least three, until the JIT
     * compiler worked less than 5 % of two rounds in a row (the project's warm-up rule), at most {@code maxRounds}.
     * Returns how many messages it took.
     */
    int warmUp(String tag, IntFunction<byte[]> bodies, int from, int perRound, int maxRounds) throws Exception {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        WarmUpRule rule = new WarmUpRule(tag);
        int sent = 0;
        for (int round = 0; round < maxRounds; round++) {
            EndToEndBenchmark.publish(ch, "", queue, bodies, from + sent, from + sent + perRound);
            sent += perRound;
            long jit0 = jit.getTotalCompilationTime();
            long t0 = System.nanoTime();
            runInTemporaryFolder(perRound);
            long roundMillis = (System.nanoTime() - t0) / 1_000_000;
            long jitMillis = jit.getTotalCompilationTime() - jit0;
            if (rule.steadyAfter(round, perRound, roundMillis, jitMillis)) {
                break;
            }
        }
        return sent;
    }

    /** Fills the queue with messages {@code bodies(first)} to {@code bodies(first + count - 1)}, then runs on them. */
    Run measure(IntFunction<byte[]> bodies, int first, int count) throws Exception {
        long bytes = EndToEndBenchmark.publish(ch, "", queue, bodies, first, first + count);
        Path folder = Files.createTempDirectory("lens-bench-prototype");
        try {
            HeapAfterGc heap = HeapAfterGc.start();
            ProcessCpu broker0 = ProcessCpu.now(ProcessCpu.BROKER);
            long cpu0 = processCpuNanos();
            BarePrototype.Result result = BarePrototype.run(factory, queue, count, folder);
            double cpuSeconds = (processCpuNanos() - cpu0) / 1e9;
            ProcessCpu broker1 = ProcessCpu.now(ProcessCpu.BROKER);
            HeapAfterGc.Reading reading = heap.stop();
            long left = ch.messageCount(queue);
            if (left != 0) {
                throw new IllegalStateException("the bare prototype left " + left + " messages in " + queue);
            }
            return new Run(
                    result,
                    reading,
                    bytes,
                    cpuSeconds,
                    broker0.seen() && broker1.seen() ? broker1.secondsSince(broker0) : Double.NaN);
        } finally {
            ArchiveFiles.delete(folder);
        }
    }

    private void runInTemporaryFolder(int count) throws Exception {
        Path folder = Files.createTempDirectory("lens-bench-prototype");
        try {
            BarePrototype.run(factory, queue, count, folder);
        } finally {
            ArchiveFiles.delete(folder);
        }
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** Deletes the queue. */
    @Override
    public void close() throws IOException {
        ch.queueDelete(queue);
    }
}
