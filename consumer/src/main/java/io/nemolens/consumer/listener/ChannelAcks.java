package io.nemolens.consumer.listener;

import com.rabbitmq.client.Channel;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The acknowledgement decisions for the deliveries of one channel, turned into as few frames as is safe.
 *
 * <p>A {@code basic.ack} with {@code multiple=true} settles every delivery of the channel up to its tag that is
 * still outstanding: one frame (and, for a quorum queue, one settle command in its log) instead of one per
 * message. So acknowledgements are coalesced over the <em>longest prefix</em> of the channel's deliveries that
 * are all decided: a delivery that is not decided yet (its message not yet durable) is never covered. The
 * deliveries are registered in delivery order, by the channel's one listener thread, before their decision can
 * be made; every delivery the container takes from the channel passes through the listener in that order, so
 * the prefix holds every outstanding tag below its last.
 *
 * <p>A requeue or a reject is sent on its own, as soon as it is decided. An acknowledgement waiting behind a
 * delivery that is still undecided is sent on its own once it has waited {@code lingerNanos}, so a message a
 * handler holds for long delays the others by that much at most.
 *
 * <p>{@link #take} is called by one sender only ({@link AckSender}), which sends the frames it returns in their
 * order: a nack is never overtaken by a multiple ack that would cover it.
 */
final class ChannelAcks {

    enum Decision {
        ACK("ack"),
        REQUEUE("requeue"),
        REJECT("reject");

        private final String tag;

        Decision(String tag) {
            this.tag = tag;
        }

        /** The {@code type} tag of {@code lens.ack.frames}. */
        String tag() {
            return tag;
        }
    }

    /** One delivery of the channel and, once made, its decision. Guarded by the {@code ChannelAcks}. */
    static final class Delivery {
        private final long tag;
        private @Nullable Decision decision;
        private long decidedNanos;
        private boolean sent;

        private Delivery(long tag) {
            this.tag = tag;
        }

        long tag() {
            return tag;
        }
    }

    /**
     * One frame to send: an ack of {@code messages} deliveries up to {@code tag} ({@code multiple} when more than
     * one), or a requeue or a reject of the delivery {@code tag}.
     */
    record Frame(Decision decision, long tag, int messages) {

        boolean multiple() {
            return messages > 1;
        }

        void sendOn(Channel channel) throws IOException {
            switch (decision) {
                case ACK -> channel.basicAck(tag, multiple());
                case REQUEUE -> channel.basicNack(tag, false, true);
                case REJECT -> channel.basicReject(tag, false);
            }
        }
    }

    /**
     * What {@link #take} found: the frames to send in order, and whether acknowledgements wait behind an
     * undecided delivery (then {@code nextNanos} is when the first of them is due).
     */
    record Taken(List<Frame> frames, boolean waiting, long nextNanos) {}

    private final Channel channel;
    private final long lingerNanos;
    // guarded by this: the registered deliveries not yet settled, in delivery order
    private final ArrayDeque<Delivery> open = new ArrayDeque<>();
    private boolean flushPending;
    private boolean timerPending;
    private long timerNanos;

    ChannelAcks(Channel channel, long lingerNanos) {
        this.channel = channel;
        this.lingerNanos = lingerNanos;
    }

    Channel channel() {
        return channel;
    }

    /** Registers the channel's next delivery; called on the channel's listener thread, in delivery order. */
    synchronized Delivery register(long tag) {
        Delivery delivery = new Delivery(tag);
        open.addLast(delivery);
        return delivery;
    }

    /**
     * Records the decision for a registered delivery (once: the caller decides at most once). Returns whether
     * the caller must ask the sender to flush (no flush is already pending).
     */
    synchronized boolean decide(Delivery delivery, Decision decision, long nowNanos) {
        delivery.decision = decision;
        delivery.decidedNanos = nowNanos;
        if (flushPending) {
            return false;
        }
        flushPending = true;
        return true;
    }

    /**
     * Takes the frames that can be sent now, marking their deliveries settled: the longest decided prefix as
     * few frames as its requeues and rejects allow; beyond it, requeues and rejects, and acks that waited long
     * enough. The sender sends them in order.
     */
    synchronized Taken take(long nowNanos) {
        flushPending = false;
        List<Frame> frames = new ArrayList<>();
        long runTag = -1;
        int run = 0;
        while (!open.isEmpty()) {
            Delivery head = open.peekFirst();
            Decision decision = head.decision;
            if (decision == null) {
                break;
            }
            open.pollFirst();
            if (decision == Decision.ACK) {
                runTag = head.tag;
                run++;
            } else {
                if (run > 0) {
                    frames.add(new Frame(Decision.ACK, runTag, run));
                    run = 0;
                }
                frames.add(new Frame(decision, head.tag, 1));
            }
        }
        if (run > 0) {
            frames.add(new Frame(Decision.ACK, runTag, run));
        }
        boolean waiting = false;
        boolean sentBehind = false;
        long next = 0;
        for (Delivery behind : open) {
            Decision decision = behind.decision;
            if (decision == null) {
                continue;
            }
            long due = behind.decidedNanos + lingerNanos;
            if (decision != Decision.ACK || nowNanos - due >= 0) {
                frames.add(new Frame(decision, behind.tag, 1));
                behind.sent = true;
                sentBehind = true;
            } else if (!waiting || due - next < 0) {
                waiting = true;
                next = due;
            }
        }
        if (sentBehind) {
            // settled alone: gone from the queue at once, so a delivery that is never decided (its listener threw)
            // holds only itself, not every delivery settled behind it, until its channel closes
            open.removeIf(d -> d.sent);
        }
        return new Taken(frames, waiting, next);
    }

    /**
     * Whether the sender must set a timer to look again at {@code dueNanos}: not when one is set for that time
     * or earlier.
     */
    synchronized boolean timerFor(long dueNanos) {
        if (timerPending && timerNanos - dueNanos <= 0) {
            return false;
        }
        timerPending = true;
        timerNanos = dueNanos;
        return true;
    }

    /** A timer set by {@link #timerFor} has fired. */
    synchronized void timerFired(long dueNanos) {
        if (timerPending && timerNanos == dueNanos) {
            timerPending = false;
        }
    }

    /** How many registered deliveries are not settled yet (decided but unsent, or undecided). */
    synchronized int unsettled() {
        return open.size();
    }
}
