package io.nemolens.archive;

import io.nemolens.archive.parquet.OpenFiles;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongConsumer;
import org.jspecify.annotations.Nullable;

/**
 * What the archive knows of the spool entries it has not finished with: for each, how many holds keep
 * it (the conversion under way, and every open or committing file with rows of it), and its message id.
 * When the last hold goes, every row of the entry is in a committed file and the spool may release it.
 *
 * <p>It also answers "is this message already in the spool?" for de-duplication, and remembers appends
 * that failed (their rows must never be committed). Thread-safe.
 */
final class Entries implements OpenFiles.EntryHolds {

    private final Map<Long, AtomicInteger> holds = new ConcurrentHashMap<>();
    private final Map<String, Long> seqOfMessage = new ConcurrentHashMap<>();
    private final Map<Long, String> messageOfSeq = new ConcurrentHashMap<>();
    private final Set<Long> failed = ConcurrentHashMap.newKeySet();
    private final LongConsumer release;

    /** @param release told the seq of an entry whose every row is committed */
    Entries(LongConsumer release) {
        this.release = release;
    }

    /**
     * Claims a message id for an append about to happen.
     *
     * @return {@code false} when the id is already in the spool (or being appended): a duplicate
     */
    boolean claim(String messageId) {
        return seqOfMessage.putIfAbsent(messageId, -1L) == null;
    }

    /** Whether the id is claimed and its append not yet under way (no seq yet). */
    boolean claimedOnly(String messageId) {
        Long seq = seqOfMessage.get(messageId);
        return seq != null && seq == -1L;
    }

    /** Gives up a claim whose append did not happen. */
    void unclaim(String messageId) {
        seqOfMessage.remove(messageId, -1L);
    }

    /** An entry is in the spool (appended now, or found at start); its conversion holds it. */
    void begin(long seq, String messageId) {
        holds.put(seq, new AtomicInteger(1));
        seqOfMessage.put(messageId, seq);
        messageOfSeq.put(seq, messageId);
    }

    /**
     * Another hold on an entry (a file now has rows of it).
     *
     * @return {@code false} when the entry is not held (its append failed): write nothing of it
     */
    @Override
    public boolean retain(long seq) {
        AtomicInteger count = holds.get(seq);
        if (count == null) {
            return false;
        }
        count.incrementAndGet();
        return true;
    }

    /** One hold less; the last one releases the entry. */
    void drop(long seq) {
        AtomicInteger count = holds.get(seq);
        if (count != null && count.decrementAndGet() == 0) {
            holds.remove(seq);
            release.accept(seq);
        }
    }

    /** The append of this entry failed: it is not in the spool, and its rows must never be committed. */
    void appendFailed(long seq) {
        failed.add(seq);
        String id = messageOfSeq.remove(seq);
        if (id != null) {
            seqOfMessage.remove(id, seq);
        }
        holds.remove(seq);
    }

    @Override
    public boolean failed(long seq) {
        return failed.contains(seq);
    }

    /** The message ids of the entries from {@code first} to {@code last}, forgotten here (their segment goes). */
    List<String> forget(long first, long last) {
        List<String> ids = new ArrayList<>();
        for (long seq = first; seq <= last; seq++) {
            String id = messageOfSeq.remove(seq);
            if (id != null) {
                seqOfMessage.remove(id, seq);
                ids.add(id);
            }
            failed.remove(seq);
        }
        return ids;
    }

    /** The message id of an entry still held, or {@code null}. */
    @Nullable
    String messageId(long seq) {
        return messageOfSeq.get(seq);
    }

    /** The lowest seq still in the spool (held or not), or {@code Long.MAX_VALUE} when none. */
    long lowestSpooledSeq() {
        long lowest = Long.MAX_VALUE;
        for (Long seq : messageOfSeq.keySet()) {
            lowest = Math.min(lowest, seq);
        }
        return lowest;
    }

    /** Entries not yet released. */
    int held() {
        return holds.size();
    }
}
