package io.nemolens.archive.commit;

import io.nemolens.archive.claims.MessageClaims;
import io.nemolens.archive.spool.Spool;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentNavigableMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claims the ids of this instance's spooled messages in the registry shared by the instances of one archive,
 * on a thread of its own: in batches, once they are durable in the spool, before any file with their rows is
 * committed. The acknowledgement does not wait for the claim: a message is acknowledged once the spool holds
 * it, as without a registry (the broker gives a message to another instance only when its acknowledgement
 * never arrived, and then both instances' copies are durable and both claim it). A message another instance
 * claimed first is dropped here: never written, released from the spool. Files wait for their entries'
 * claims before they are committed, so a dropped message's rows never reach a committed file (a file that has
 * some is given up and its other rows written again).
 *
 * <p>Claims are batched: a batch goes to the registry when a file waits for it, when it reaches {@value
 * #BATCH} ids, or when its oldest entry has waited {@link #LINGER_MILLIS} ms, so the registry sees about one
 * statement per committed file rather than one per group commit. While the registry fails, claims are retried
 * with backoff and files wait; the archive refuses new messages once {@link #BACKLOG} ids wait.
 */
public final class ClaimKeeper implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ClaimKeeper.class);
    private static final int BATCH = 2_000;
    /** The longest an entry waits for its claim while no file waits for it. */
    public static final long LINGER_MILLIS = 1_000;
    /** Unclaimed entries beyond which a failing registry stops the archive taking messages. */
    static final int BACKLOG = 10_000;

    private static final Duration FIRST_BACKOFF = Duration.ofMillis(200);
    private static final Duration LAST_BACKOFF = Duration.ofSeconds(10);
    /** The longest the idle keeper waits without a signal: it expires old claims then, and looks again. */
    private static final Duration IDLE = Duration.ofSeconds(1);

    private record Pending(String messageId) {}

    /** Where the entries another instance claimed first go. */
    public interface ClaimedElsewhere {
        /** Another instance claimed the message of entry {@code seq} first: drop it here, and every file with rows of it. */
        void claimedElsewhere(long seq);
    }

    private final MessageClaims claims;
    private final String instanceId;
    private final Spool spool;
    private final Holds holds;
    private final ChangeSignal signal;
    private final Consumer<List<String>> claiming;
    private final RemoteStep step;
    private final Clock clock;
    private final Duration keep;
    private final ConcurrentNavigableMap<Long, Pending> pending = new ConcurrentSkipListMap<>();
    /** How many entries {@link #pending} holds, without counting them. */
    private final AtomicInteger unclaimed = new AtomicInteger();

    private final AtomicLong claimed = new AtomicLong();
    private final AtomicLong lost = new AtomicLong();

    private volatile boolean closed;
    /** A file waits for a claim: the next batch goes now. */
    private volatile boolean wanted;

    private long nextExpiryMillis;
    /** When the keeper first saw the oldest durable entry still waiting for its claim; zero when none. */
    private long waitingSinceMillis;

    /**
     * @param spool the spool whose durable entries are claimed
     * @param holds whether an entry's append failed (it is never claimed)
     * @param signal signalled by the spool when appends settle; the keeper waits on it, and signals it when claims
     *     are decided, so that files waiting for their claims look again
     * @param claiming told of each batch of ids before it goes to the registry
     * @param keep how long claims are kept (the de-duplication window)
     */
    public ClaimKeeper(
            MessageClaims claims,
            String instanceId,
            Spool spool,
            Holds holds,
            ChangeSignal signal,
            Consumer<List<String>> claiming,
            Clock clock,
            Duration keep) {
        this.claims = claims;
        this.instanceId = instanceId;
        this.spool = spool;
        this.holds = holds;
        this.signal = signal;
        this.claiming = claiming;
        this.clock = clock;
        this.step = new RemoteStep("the claim registry", claims.location(), FIRST_BACKOFF, LAST_BACKOFF, clock);
        this.keep = keep;
        this.nextExpiryMillis = clock.millis() + TimeUnit.MINUTES.toMillis(1);
    }

    /**
     * Starts claiming, on the keeper's thread (once, before any entry is registered).
     *
     * @param elsewhere told of each entry another instance claimed first
     */
    public void start(ClaimedElsewhere elsewhere) {
        step.start("lens-archive-claims", () -> round(elsewhere));
    }

    /** An entry to claim once it is durable (registered before any file has rows of it). */
    public void register(long seq, String messageId) {
        if (pending.put(seq, new Pending(messageId)) == null) {
            unclaimed.incrementAndGet();
        }
    }

    /** Its claim is decided, or it will never be claimed (its append failed). */
    private void forget(long seq) {
        if (pending.remove(seq) != null) {
            unclaimed.decrementAndGet();
        }
    }

    /**
     * Whether an entry's claim is not decided yet (its rows must not be committed). Asking means a file waits
     * for it: the claims that wait go to the registry without lingering.
     */
    boolean undecided(long seq) {
        if (!pending.containsKey(seq)) {
            return false;
        }
        if (!wanted) {
            wanted = true;
            signal.signal();
        }
        return true;
    }

    /**
     * Claims what waits now, and waits until it is decided, the registry fails, or {@code timeout} passes: at
     * start, so that the spool's messages another instance claimed meanwhile are dropped before their rows are
     * written again (rather than written, then given up with the files that hold them).
     *
     * @return whether everything that waited is decided
     */
    public boolean settle(Duration timeout) {
        wanted = true;
        signal.signal();
        try {
            boolean settled = signal.await(
                    () -> {
                        if (pending.isEmpty() || step.failing() || closed) {
                            return true;
                        }
                        if (!wanted) {
                            wanted = true; // a batch went; the rest goes too
                            signal.signal();
                        }
                        return false;
                    },
                    timeout);
            if (!settled) {
                return false;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return pending.isEmpty();
    }

    /** The registry as the commit path calls it: its failures. */
    public RemoteStep step() {
        return step;
    }

    /** How many entries wait for their claim. */
    public int waiting() {
        return pending.size();
    }

    /** Whether an entry's claim will never be decided in this run (the archive closed while the registry failed). */
    boolean abandoned(long seq) {
        return closed && pending.containsKey(seq);
    }

    /** The archive closes: a failing registry is not retried any more. */
    public void closing() {
        step.closing();
        signal.signal();
    }

    /** One batch claimed, or a wait for one; {@code false} once the keeper closed. */
    private boolean round(ClaimedElsewhere elsewhere) {
        List<Map.Entry<Long, Pending>> batch = nextBatch();
        if (batch.isEmpty()) {
            waitingSinceMillis = 0;
            wanted = false;
            expireNowAndThen();
            // until an entry to claim is durable (or failed), a claim is wanted, or the keeper closes
            awaitWork(this::claimable, IDLE);
            return !closed;
        }
        long now = clock.millis();
        if (waitingSinceMillis == 0) {
            waitingSinceMillis = now;
        }
        if (!wanted && !step.isClosing() && batch.size() < BATCH && now - waitingSinceMillis < LINGER_MILLIS) {
            // until a claim is wanted, the keeper closes, a full batch is durable, or the linger is over
            awaitWork(this::fullBatch, Duration.ofMillis(waitingSinceMillis + LINGER_MILLIS - now));
            return !closed;
        }
        wanted = false;
        List<String> ids = new ArrayList<>(batch.size());
        for (Map.Entry<Long, Pending> e : batch) {
            ids.add(e.getValue().messageId());
        }
        claiming.accept(ids);
        Set<String> takenByOthers = step.untilClosed(
                "claiming " + ids.size() + " message ids (files wait for their claims meanwhile)",
                () -> claims.claim(instanceId, ids));
        if (takenByOthers == null) {
            log.warn(
                    "the archive closes while the claim registry {} fails ({}): {} spooled messages stay"
                            + " unclaimed (they are claimed at the next start)",
                    claims.location(),
                    step.lastError(),
                    pending.size());
            closed = true;
            signal.signal();
            return false;
        }
        for (Map.Entry<Long, Pending> e : batch) {
            long seq = e.getKey();
            if (takenByOthers.contains(e.getValue().messageId())) {
                lost.incrementAndGet();
                log.info(
                        "message {} was claimed first by another instance (its copy is durable there): dropped"
                                + " here and acknowledged",
                        e.getValue().messageId());
                elsewhere.claimedElsewhere(seq);
            } else {
                claimed.incrementAndGet();
            }
            forget(seq);
        }
        waitingSinceMillis = 0;
        signal.signal(); // the files waiting for these claims look again
        return !closed;
    }

    /**
     * On the keeper's thread: waits until {@code more} holds, a claim is wanted, or the keeper closes; at most
     * {@code timeout}.
     */
    private void awaitWork(ChangeSignal.Awaited more, Duration timeout) {
        try {
            var unused = signal.await(() -> wanted || step.isClosing() || closed || more.holds(), timeout);
        } catch (InterruptedException e) {
            // only close() ends the keeper: an interrupt is no reason to stop claiming, it looks again
        }
    }

    /** Whether the first entry waiting for its claim is durable now, or its append failed. */
    private boolean claimable() {
        Map.Entry<Long, Pending> first = pending.firstEntry();
        return first != null && (first.getKey() <= spool.durableSeq() || holds.failed(first.getKey()));
    }

    /** Whether a full batch of entries waiting for their claim is durable now (counted only when one may be). */
    private boolean fullBatch() {
        if (unclaimed.get() < BATCH) {
            return false;
        }
        return pending.headMap(spool.durableSeq(), true).keySet().stream()
                        .limit(BATCH)
                        .count()
                == BATCH;
    }

    /** The durable entries waiting for their claim, in seq order; entries whose append failed leave the queue. */
    private List<Map.Entry<Long, Pending>> nextBatch() {
        long durable = spool.durableSeq();
        List<Map.Entry<Long, Pending>> batch = new ArrayList<>();
        for (Map.Entry<Long, Pending> e : pending.headMap(durable, true).entrySet()) {
            if (holds.failed(e.getKey())) {
                forget(e.getKey());
                continue;
            }
            batch.add(e);
            if (batch.size() == BATCH) {
                break;
            }
        }
        // an entry whose append failed is never durable: it does not hold up the queue behind it
        for (Map.Entry<Long, Pending> e : pending.tailMap(durable, false).entrySet()) {
            if (holds.failed(e.getKey())) {
                forget(e.getKey());
            }
        }
        return batch;
    }

    /** Removes the claims older than the de-duplication window, once a minute at most. */
    private void expireNowAndThen() {
        long now = clock.millis();
        if (now < nextExpiryMillis) {
            return;
        }
        nextExpiryMillis = now + TimeUnit.MINUTES.toMillis(10);
        try {
            long removed = claims.expire(clock.instant().minus(keep));
            if (removed > 0) {
                log.info("removed {} claims older than {} from {}", removed, keep, claims.location());
            }
        } catch (IOException | RuntimeException e) {
            log.warn("expiring old claims in {} failed ({}); trying again later", claims.location(), e.getMessage());
        }
    }

    /**
     * Why the archive takes no more messages now: the registry fails, and {@link #BACKLOG} spooled messages or
     * {@link Committer#BACKLOG_FILES} files wait for their claims; or {@code null}.
     */
    public @Nullable String refusal(int waitingFiles) {
        int messages = pending.size();
        if (!step.failing() || (messages < BACKLOG && waitingFiles < Committer.BACKLOG_FILES)) {
            return null;
        }
        return "the claim registry " + step.location() + " fails (" + step.lastError() + "); " + messages
                + " spooled messages and " + waitingFiles + " files wait for their claims";
    }

    /** Message ids claimed for this instance. */
    public long claimed() {
        return claimed.get();
    }

    /** Message ids another instance claimed first (dropped here). */
    public long lost() {
        return lost.get();
    }

    /** Stops claiming; what waits stays unclaimed (the spool keeps it, and it is claimed at the next start). */
    @Override
    public void close() {
        closed = true;
        step.closing();
        signal.signal();
        step.awaitEnd(Duration.ofSeconds(10));
    }
}
