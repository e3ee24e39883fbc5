package io.nemolens.archive.dedup;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/** Random ids, as SHA-256 prefixes are, from a seed so that a failure repeats. */
final class TestIds {

    private final SplittableRandom random;

    TestIds(long seed) {
        this.random = new SplittableRandom(seed);
    }

    MessageKey next() {
        return new MessageKey(random.nextLong(), random.nextLong());
    }

    List<MessageKey> next(int count) {
        List<MessageKey> ids = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            ids.add(next());
        }
        return ids;
    }
}
