package io.nemolens.archive.dedup;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecordsTest {

    private static final Comparator<MessageKey> UNSIGNED =
            (a, b) -> Records.compare(a.high(), a.low(), b.high(), b.low());

    @Test
    void sortsAsUnsigned128BitNumbersThatIsInHexOrder() {
        List<MessageKey> ids = new TestIds(1).next(5_000);
        ids.add(new MessageKey(0, 0));
        ids.add(new MessageKey(-1, -1));
        ids.add(new MessageKey(Long.MIN_VALUE, 0));
        ids.add(new MessageKey(Long.MAX_VALUE, -1));

        List<MessageKey> sorted = sort(ids);

        assertThat(sorted).isSortedAccordingTo(UNSIGNED).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(sorted.stream().map(MessageKey::hex).toList()).isSorted();
    }

    @Test
    void sortsManyEqualIdsAndOnesEqualInTheirHighHalf() {
        List<MessageKey> ids = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) {
            ids.add(new MessageKey(i % 3, 7));
            ids.add(new MessageKey(42, 1000 - i % 50));
        }

        assertThat(sort(ids)).isSortedAccordingTo(UNSIGNED).containsExactlyInAnyOrderElementsOf(ids);
    }

    @Test
    void sortsSortedReversedAndTinyInputs() {
        for (int size : new int[] {0, 1, 2, 3, 17, 1000}) {
            List<MessageKey> ascending = new ArrayList<>();
            for (int i = 0; i < size; i++) {
                ascending.add(new MessageKey(0, i));
            }
            assertThat(sort(ascending)).containsExactlyElementsOf(ascending);
            List<MessageKey> descending = new ArrayList<>(ascending);
            Collections.reverse(descending);
            assertThat(sort(descending)).containsExactlyElementsOf(ascending);
        }
    }

    @Test
    void findsEveryIdOfASortedBufferAndNoOther() {
        List<MessageKey> ids = new TestIds(2).next(2_000);
        ByteBuffer buffer = Records.encode(ids);
        Records.sort(buffer, ids.size());

        assertThat(ids).allMatch(id -> Records.contains(buffer, ids.size(), id.high(), id.low()));
        assertThat(new TestIds(3).next(2_000))
                .noneMatch(id -> Records.contains(buffer, ids.size(), id.high(), id.low()));
        assertThat(Records.contains(buffer, 0, ids.get(0).high(), ids.get(0).low()))
                .isFalse();
    }

    /** The guesses assume evenly spread ids; unevenly spread ones must be found all the same. */
    @Test
    void findsIdsThatAreNotSpreadEvenly() {
        List<MessageKey> ids = new ArrayList<>();
        for (int i = 0; i < 3_000; i++) {
            ids.add(new MessageKey(1L << (i % 64), i)); // powers of two, the top bit among them
            ids.add(new MessageKey(5, i)); // one high half for many
            ids.add(new MessageKey(-1L - i % 7, 3)); // a cluster at the top, duplicates
            ids.add(new MessageKey((long) i * i, 0)); // growing gaps
        }
        ByteBuffer buffer = Records.encode(ids);
        Records.sort(buffer, ids.size());

        assertThat(ids).allMatch(id -> Records.contains(buffer, ids.size(), id.high(), id.low()));
        List<MessageKey> absent = new ArrayList<>(new TestIds(4).next(1_000));
        for (int i = 0; i < 100; i++) {
            absent.add(new MessageKey(1L << (i % 64), -1 - i));
            absent.add(new MessageKey(5, 3_000 + i));
            absent.add(new MessageKey(-8, i));
            absent.add(new MessageKey((long) i * i + 1, -1));
            absent.add(new MessageKey(0, 1));
        }
        assertThat(absent).doesNotContainAnyElementsOf(ids);
        assertThat(absent).noneMatch(id -> Records.contains(buffer, ids.size(), id.high(), id.low()));
    }

    private static List<MessageKey> sort(List<MessageKey> ids) {
        ByteBuffer buffer = Records.encode(ids);
        Records.sort(buffer, ids.size());
        List<MessageKey> sorted = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            sorted.add(new MessageKey(Records.high(buffer, i), Records.low(buffer, i)));
        }
        return sorted;
    }
}
