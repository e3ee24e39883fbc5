package io.nemolens.benchmarks;

import com.rabbitmq.client.Channel;
import io.nemolens.handlers.Encoding;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.List;

/**
 * The warm-up of the end-to-end bench's consumers, one target after the other, by the bench's rule
 * ({@link WarmUpRule}): rounds of messages the measured runs do not send, each ending with every file committed.
 */
final class TargetWarmUp {

    private TargetWarmUp() {}

    /**
     * Warms every target up in turn ({@link #warmUp}), each on the same messages (archives apart); returns the
     * most warm-up messages one of them took.
     */
    static int all(Channel ch, List<BenchConsumer> consumers, Encoding encoding, BenchSettings settings)
            throws Exception {
        boolean several = consumers.size() > 1;
        int warmedUp = 0;
        for (BenchConsumer c : consumers) {
            c.container().start();
            // every warm-up round ends with its files committed: the first measured run starts with none open
            String tag = several ? encoding.tag() + " " + c.target().label() : encoding.tag();
            warmedUp = Math.max(warmedUp, warmUp(ch, c, tag, encoding, settings));
            c.container().stop();
        }
        return warmedUp;
    }

    /**
     * Runs rounds of warm-up messages (seeds after the first pass's measured ones, the same runs) through the
     * running consumer, at least three, until the JIT compiler works less than 5 % of two rounds in a row, or the
     * rounds run out. Returns how many messages it took.
     */
    private static int warmUp(Channel ch, BenchConsumer c, String tag, Encoding encoding, BenchSettings settings)
            throws Exception {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        int perRound = settings.warmup();
        WarmUpRule rule = new WarmUpRule(tag);
        double acked0 = c.acked();
        int sent = 0;
        for (int round = 0; round < settings.warmupRounds(); round++) {
            long jit0 = jit.getTotalCompilationTime();
            long t0 = System.nanoTime();
            int from = settings.messages() + sent;
            c.fill(ch, encoding, settings, from, from + perRound);
            sent += perRound;
            c.awaitAcked(acked0, sent, t0, "warm-up round " + (round + 1));
            // a running consumer commits files every few minutes: the commit's code is part of the steady state
            c.commitAll(t0);
            long roundMillis = (System.nanoTime() - t0) / 1_000_000;
            long jitMillis = jit.getTotalCompilationTime() - jit0;
            if (rule.steadyAfter(round, perRound, roundMillis, jitMillis)) {
                break;
            }
        }
        return sent;
    }
}
