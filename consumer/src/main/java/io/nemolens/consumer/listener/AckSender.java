package io.nemolens.consumer.listener;

import com.rabbitmq.client.Channel;
import io.nemolens.consumer.listener.ChannelAcks.Decision;
import io.nemolens.consumer.listener.ChannelAcks.Frame;
import io.nemolens.consumer.listener.ChannelAcks.Taken;
import io.nemolens.consumer.metrics.LensMetrics;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread that sends the listener's acknowledgement frames, for every channel: decisions are recorded
 * where they are made (the listener thread, or the spool's writer once a message is durable) and this thread
 * sends them, coalesced per channel by {@link ChannelAcks}. While it sends one channel's frames, the decisions
 * made meanwhile gather into the next frame, so under load one {@code basic.ack} settles many messages; when
 * idle, a decision is sent as soon as this thread wakes.
 *
 * <p>A channel's acknowledgements die with it: once it is closed, the broker redelivers what it had not
 * settled, and the decisions still waiting for it are dropped with a log line.
 */
public final class AckSender implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(AckSender.class);

    /** How long an acknowledgement waits behind an undecided delivery of its channel before it is sent alone. */
    public static final Duration DEFAULT_LINGER = Duration.ofMillis(10);

    private final ScheduledThreadPoolExecutor thread;
    private final ConcurrentHashMap<Channel, ChannelAcks> channels = new ConcurrentHashMap<>();
    private final long lingerNanos;
    private final LensMetrics metrics;
    private final AtomicBoolean saidClosed = new AtomicBoolean();

    public AckSender(LensMetrics metrics, Duration linger) {
        this.metrics = metrics;
        this.lingerNanos = linger.toNanos();
        this.thread = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread t = new Thread(runnable, "lens-acks");
            t.setDaemon(true);
            return t;
        });
    }

    /** The decisions of {@code channel} (the physical one), made on first use. */
    ChannelAcks channel(Channel channel) {
        ChannelAcks acks = channels.get(channel);
        if (acks != null) {
            return acks;
        }
        ChannelAcks made = new ChannelAcks(channel, lingerNanos);
        acks = channels.putIfAbsent(channel, made);
        if (acks != null) {
            return acks;
        }
        // outside the map's update: a channel already closed calls the listener at once
        channel.addShutdownListener(cause -> channels.remove(channel, made));
        return made;
    }

    /** Records {@code decision} for {@code delivery}, made once, and has it sent. */
    void decide(ChannelAcks acks, ChannelAcks.Delivery delivery, Decision decision) {
        if (acks.decide(delivery, decision, System.nanoTime())) {
            submit(() -> flush(acks));
        }
    }

    private void submit(Runnable task) {
        try {
            thread.execute(task);
        } catch (RejectedExecutionException e) {
            closedSaid();
        }
    }

    private void closedSaid() {
        if (saidClosed.compareAndSet(false, true)) {
            log.warn("the acknowledgement sender is closed; the broker redelivers what it did not acknowledge");
        }
    }

    private void flush(ChannelAcks acks) {
        Taken taken = acks.take(System.nanoTime());
        Channel channel = acks.channel();
        int sent = 0;
        for (Frame frame : taken.frames()) {
            try {
                frame.sendOn(channel);
            } catch (IOException | RuntimeException e) {
                int dropped = taken.frames().size() - sent;
                log.warn(
                        "could not send {} acknowledgement frame(s) up to delivery {} ({}); the broker redelivers"
                                + " the messages they settled",
                        dropped,
                        taken.frames().get(taken.frames().size() - 1).tag(),
                        e.toString());
                channels.remove(channel, acks);
                return;
            }
            sent++;
            metrics.ackFrame(frame.decision().tag(), frame.messages());
        }
        if (taken.waiting() && acks.timerFor(taken.nextNanos())) {
            long due = taken.nextNanos();
            long delay = Math.max(0, due - System.nanoTime());
            try {
                // flush says its own failures; nothing waits for this future
                ScheduledFuture<?> unused = thread.schedule(
                        () -> {
                            acks.timerFired(due);
                            flush(acks);
                        },
                        delay,
                        TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                closedSaid();
            }
        }
    }

    /** How many channels have decisions recorded here; for tests. */
    int channels() {
        return channels.size();
    }

    /** Sends what is decided and stops; decisions made afterwards are dropped (their messages redelivered). */
    @Override
    public void close() {
        for (ChannelAcks acks : channels.values()) {
            submit(() -> flush(acks));
        }
        thread.shutdown();
        try {
            if (!thread.awaitTermination(5, TimeUnit.SECONDS)) {
                thread.shutdownNow();
            }
        } catch (InterruptedException e) {
            thread.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
