package io.nemolens.poison;

import com.rabbitmq.client.Channel;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.nemolens.consumer.scheduling.PeriodicTask;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;

/**
 * Polls the depth of the processing, poison and parking-lot queues on its own thread
 * ({@code queue.declare} passive: no message is touched, so no delivery count grows) and keeps the
 * last answer for the gauge {@code lens.queue.depth} (tag {@code queue}: {@code processing},
 * {@code poison}, {@code parking-lot}) and the health indicators. A scrape or a health check never
 * waits for the broker. Depth is -1 until the first answer and while the broker does not answer.
 *
 * <p>A caller that compares a depth with something newer (the console, with the poison index it has just
 * seen change) asks for one read at or after an instant ({@link #depthAsOf}): the last poll's when it is
 * recent enough, else a poll of that queue on the caller's thread.
 *
 * <p>It also tracks since when the poison queue has been non-empty without a break, as the age of
 * its oldest message: reading the head message to learn its real age would be a delivery, which
 * quorum queues count towards the delivery limit, so it is not done on a timer.
 */
public final class QueueDepthMonitor extends PeriodicTask {

    private static final Logger log = LoggerFactory.getLogger(QueueDepthMonitor.class);

    /**
     * The last poll, for one queue.
     *
     * @param queue the queue's name
     * @param depth ready messages, or -1 when unknown
     * @param polledAt when the last poll asked the broker (the depth is at least that recent), or {@code null}
     *     before the first
     * @param nonEmptySince since when the queue has been non-empty without a break, or {@code null} when it is
     *     empty or that is unknown
     * @param error why the last poll failed, or {@code null} when it succeeded
     */
    public record Depth(
            String queue,
            long depth,
            @Nullable Instant polledAt,
            @Nullable Instant nonEmptySince,
            @Nullable String error) {}

    private final ConnectionFactory connectionFactory;
    private final Map<String, String> queues;
    private final Clock clock;
    private final Map<String, Depth> depths = new LinkedHashMap<>();

    /**
     * @param queues queue name by role ({@code processing}, {@code poison}, {@code parking-lot})
     */
    public QueueDepthMonitor(
            ConnectionFactory connectionFactory,
            Map<String, String> queues,
            Duration interval,
            Clock clock,
            MeterRegistry registry) {
        super("lens-queue-depth", interval);
        this.connectionFactory = connectionFactory;
        this.queues = Map.copyOf(queues);
        this.clock = clock;
        queues.forEach((role, name) -> {
            depths.put(role, new Depth(name, -1, null, null, "not polled yet"));
            Gauge.builder("lens.queue.depth", this, m -> {
                        Depth d = m.depth(role);
                        return d == null ? -1 : d.depth();
                    })
                    .description("messages ready in the queue, at the last poll (-1: unknown)")
                    .tag("queue", role)
                    .register(registry);
        });
    }

    /** The last poll of the queue with this role, or {@code null} for a role this monitor does not poll. */
    public synchronized @Nullable Depth depth(String role) {
        return depths.get(role);
    }

    /**
     * The depth of the queue with this role as read at or after {@code instant}: the last poll's if it
     * asked the broker after that instant, else a poll of that queue now, on the caller's thread (one
     * passive {@code queue.declare}, which touches no message). {@code null} for a role this monitor does
     * not poll.
     */
    public @Nullable Depth depthAsOf(String role, Instant instant) {
        Depth last = depth(role);
        if (last == null || (last.polledAt() != null && last.polledAt().isAfter(instant))) {
            return last;
        }
        return poll(role, last.queue());
    }

    /** Polls every queue now, on the caller's thread. */
    public void poll() {
        queues.forEach(this::poll);
    }

    private Depth poll(String role, String name) {
        Instant asked = clock.instant();
        long depth = -1;
        String error = null;
        Channel channel = null;
        try {
            channel = connectionFactory.createConnection().getDelegate().createChannel();
            if (channel == null) {
                // amqp-client answers null, not an exception, when the connection's channels are all in use
                throw new IOException("the broker connection has no free channel");
            }
            depth = channel.queueDeclarePassive(name).getMessageCount();
        } catch (Exception e) {
            error = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            log.debug("depth of '{}' unknown: {}", name, error);
        } finally {
            try {
                if (channel != null && channel.isOpen()) {
                    channel.close();
                }
            } catch (Exception e) {
                log.debug("closing a channel failed", e);
            }
        }
        return update(role, name, asked, depth, error);
    }

    /** Keeps this answer unless a poll that asked later (on another thread) has already answered. */
    private synchronized Depth update(String role, String name, Instant asked, long depth, @Nullable String error) {
        Depth previous = depths.get(role);
        if (previous != null
                && previous.polledAt() != null
                && previous.polledAt().isAfter(asked)) {
            return previous;
        }
        Instant since = null;
        if (depth > 0) {
            since = previous != null && previous.nonEmptySince() != null ? previous.nonEmptySince() : asked;
        } else if (depth < 0 && previous != null) {
            since = previous.nonEmptySince(); // unknown: keep what we knew
        }
        Depth polled = new Depth(name, depth, asked, since, error);
        depths.put(role, polled);
        return polled;
    }

    /** One poll on the timer; a failure is logged and the next poll is on time. */
    @Override
    protected void runOnce() {
        try {
            poll();
        } catch (RuntimeException e) {
            log.debug("queue depth poll failed", e);
        }
    }
}
