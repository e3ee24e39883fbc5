package io.nemolens.archive.commit;

import io.nemolens.archive.parquet.OpenFiles;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * The holds that keep spool entries: an entry is held by its conversion (or rewrite) under way, until its
 * append is durable, and by every open or committing file with rows of it. When its last hold is released,
 * every row of the entry is in a committed file and the spool may release the entry.
 *
 * <p>With the holds go the message ids of the entries in the spool, which answer "is this message already
 * in the spool?" for de-duplication, and the appends that failed (their rows must never be committed).
 * Thread-safe.
 */
public final class Holds implements OpenFiles.EntryHolds {

    private final Map<Long, AtomicInteger> holds = new ConcurrentHashMap<>();
    private final Map<String, Long> seqOfMessage = new ConcurrentHashMap<>();
    private final Map<Long, String> messageOfSeq = new ConcurrentHashMap<>();
    private final Set<Long> failed = ConcurrentHashMap.newKeySet();
    private final Released released;

    /** Where an entry goes once nothing holds it any more: the spool may release it. */
    public interface Released {
        /** The last hold on entry {@code seq} went: every row of it is committed (or it was dropped). */
        void released(long seq);
    }

    /** @param released told the seq of an entry whose last hold went */
    public Holds(Released released) {
        this.released = released;
    }

    /**
     * Claims a message id for an append about to happen.
     *
     * @return {@code false} when the id is already in the spool (or being appended): a duplicate
     */
    public boolean claim(String messageId) {
        return seqOfMessage.putIfAbsent(messageId, -1L) == null;
    }

    /** Whether the id is claimed and its append not yet under way (no seq yet). */
    public boolean claimedOnly(String messageId) {
        Long seq = seqOfMessage.get(messageId);
        return seq != null && seq == -1L;
    }

    /** Gives up a claim whose append did not happen. */
    public void unclaim(String messageId) {
        seqOfMessage.remove(messageId, -1L);
    }

    /** An entry is in the spool (appended now, or found at start): its first hold, for its conversion. */
    public void holdNew(long seq, String messageId) {
        holds.put(seq, new AtomicInteger(1));
        seqOfMessage.put(messageId, seq);
        messageOfSeq.put(seq, messageId);
    }

    /**
     * Another hold on an entry (a file now has rows of it, or its append is not durable yet).
     *
     * @return {@code false} when the entry is not held (its append failed): write nothing of it
     */
    @Override
    public boolean hold(long seq) {
        AtomicInteger count = holds.get(seq);
        if (count == null) {
            return false;
        }
        count.incrementAndGet();
        return true;
    }

    /** Releases one hold; the last one releases the entry in the spool. */
    public void release(long seq) {
        AtomicInteger count = holds.get(seq);
        if (count != null && count.decrementAndGet() == 0) {
            holds.remove(seq);
            released.released(seq);
        }
    }

    /** The append of this entry failed: it is not in the spool, and its rows must never be committed. */
    public void appendFailed(long seq) {
        failed.add(seq);
        String id = messageOfSeq.remove(seq);
        if (id != null) {
            seqOfMessage.remove(id, seq);
        }
        holds.remove(seq);
    }

    /**
     * Another instance archives this entry's message (it claimed it first): its rows must never be committed,
     * and the spool may let it go. Its message id stays known, so a redelivery here is a duplicate.
     */
    public void dropped(long seq) {
        failed.add(seq);
        if (holds.remove(seq) != null) {
            released.released(seq);
        }
    }

    @Override
    public boolean failed(long seq) {
        return failed.contains(seq);
    }

    /** Forgets the entries from {@code first} to {@code last} (their segment goes). */
    public void forget(long first, long last) {
        for (long seq = first; seq <= last; seq++) {
            String id = messageOfSeq.remove(seq);
            if (id != null) {
                seqOfMessage.remove(id, seq);
            }
            failed.remove(seq);
        }
    }

    /** The message id of an entry in the spool, or {@code null}. */
    @Nullable
    public String messageId(long seq) {
        return messageOfSeq.get(seq);
    }

    /** The lowest seq still in the spool (held or not), or {@code Long.MAX_VALUE} when none. */
    public long lowestSpooledSeq() {
        long lowest = Long.MAX_VALUE;
        for (Long seq : messageOfSeq.keySet()) {
            lowest = Math.min(lowest, seq);
        }
        return lowest;
    }
}
