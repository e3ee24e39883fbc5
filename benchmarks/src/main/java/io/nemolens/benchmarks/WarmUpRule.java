package io.nemolens.benchmarks;

import java.util.Locale;

/**
 * The bench's warm-up rule, for the project's consumer and the bare prototype alike: rounds of messages, at
 * least three, until the JIT compiler worked less than 5 % of two rounds in a row (the steady state). Each
 * round is printed. One per warm-up; not thread-safe.
 */
final class WarmUpRule {

    private final String tag;
    private int quietRounds;

    WarmUpRule(String tag) {
        this.tag = tag;
    }

    /**
     * Round {@code round} (from 0) of {@code messages} took {@code roundMillis}, {@code jitMillis} of it JIT
     * compiling: prints it.
     *
     * @return whether the steady state is reached (no more rounds needed)
     */
    boolean steadyAfter(int round, int messages, long roundMillis, long jitMillis) {
        System.out.printf(
                Locale.ROOT,
                "%-8s warm-up round %d: %d messages in %d ms, JIT compiling %d ms%n",
                tag,
                round + 1,
                messages,
                roundMillis,
                jitMillis);
        quietRounds = jitMillis < roundMillis / 20 ? quietRounds + 1 : 0;
        return round >= 2 && quietRounds >= 2;
    }
}
