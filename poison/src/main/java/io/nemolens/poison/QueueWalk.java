package io.nemolens.poison;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.GetResponse;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;

/**
 * Reads the messages that are in a queue when the walk starts, in queue order, without losing or
 * reordering any: {@code queue.declare} (passive) snapshots the depth, then at most that many
 * {@code basic.get}s without auto-ack hold every message unacknowledged; the visitor may acknowledge
 * one (it was moved elsewhere, confirmed); at the end one {@code basic.nack(multiple, requeue)} returns
 * all the others at once, in their order and ahead of anything that arrived meanwhile.
 *
 * <p>Why the whole snapshot and one multiple-nack: a quorum queue serves returned messages before
 * never-delivered ones, in the order they were returned. Returning them all in one nack keeps their
 * order; returning a prefix while earlier-returned messages are still in the queue would put that
 * prefix behind them, and closing the channel returns them in no particular order (checked on
 * RabbitMQ 3.10). Messages arriving during the walk are never read: the walk does not chase them.
 *
 * <p>Cost: every returned message's delivery count grows by one. The poison queue's
 * {@code x-delivery-limit} (1000) is therefore a budget of walks; see {@link PoisonInspector}.
 */
final class QueueWalk {

    private static final Logger log = LoggerFactory.getLogger(QueueWalk.class);

    /** What to do with one message. */
    interface Visitor {
        /**
         * Looks at one message.
         *
         * @param position 1-based position in the queue
         * @param response the message, unacknowledged
         * @return {@code true} if the message must be acknowledged (removed), {@code false} to return it
         */
        boolean visit(int position, GetResponse response) throws IOException;
    }

    /**
     * The walk's outcome.
     *
     * @param depth ready messages when the walk started
     * @param examined messages read
     */
    record Result(long depth, int examined) {}

    private QueueWalk() {}

    /**
     * Whether a message has been delivered so often that returning it once more could reach the queue's
     * {@code x-delivery-limit}, where RabbitMQ drops it (the poison queue has no dead-letter target).
     * The margin is a tenth of the limit, at least 1 and at most 10.
     */
    static boolean nearDeliveryLimit(long deliveryCount, int deliveryLimit) {
        int margin = Math.max(1, Math.min(10, deliveryLimit / 10));
        return deliveryCount >= deliveryLimit - margin;
    }

    /**
     * Walks the queue.
     *
     * @param limit read at most this many messages even if the queue holds more
     * @throws IOException when the queue does not exist or the broker connection fails; messages not
     *     yet acknowledged then return to the queue (the broker does that when the channel closes)
     */
    static Result walk(ConnectionFactory connectionFactory, String queue, int limit, Visitor visitor)
            throws IOException {
        Channel channel = rawChannel(connectionFactory);
        long lastHeld = 0;
        int examined = 0;
        int held = 0;
        long depth;
        try {
            depth = channel.queueDeclarePassive(queue).getMessageCount();
            long toRead = Math.min(depth, limit);
            while (examined < toRead) {
                GetResponse response = channel.basicGet(queue, false);
                if (response == null) {
                    break; // someone else took messages meanwhile
                }
                examined++;
                long tag = response.getEnvelope().getDeliveryTag();
                if (visitor.visit(examined, response)) {
                    channel.basicAck(tag, false);
                } else {
                    lastHeld = tag;
                    held++;
                }
            }
            if (lastHeld > 0) {
                channel.basicNack(lastHeld, true, true);
                lastHeld = 0;
                awaitReturned(channel, queue, held);
            }
        } finally {
            if (lastHeld > 0) {
                log.warn(
                        "walk of '{}' ended early; the broker returns the {} held messages when the channel closes "
                                + "(nothing is lost, but their order may change)",
                        queue,
                        examined);
            }
            close(channel);
        }
        return new Result(depth, examined);
    }

    /**
     * A channel of the shared connection outside Spring's channel cache: closing it really closes it,
     * so the broker returns what it still holds, and confirm mode never leaks to other users.
     */
    static Channel rawChannel(ConnectionFactory connectionFactory) throws IOException {
        Channel channel = connectionFactory.createConnection().getDelegate().createChannel();
        if (channel == null) {
            throw new IOException("the broker connection has no free channel");
        }
        return channel;
    }

    /**
     * Waits until the queue counts the returned messages as ready again. A quorum queue applies a nack
     * asynchronously: without this, a walk that starts right after this one (a listing after a replay)
     * could snapshot a depth without them. Gives up after a few seconds (someone else took them).
     */
    private static void awaitReturned(Channel channel, String queue, int returned) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (channel.queueDeclarePassive(queue).getMessageCount() < returned && System.nanoTime() < deadline) {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    static void close(Channel channel) {
        try {
            if (channel != null && channel.isOpen()) {
                channel.close();
            }
        } catch (IOException | TimeoutException | RuntimeException e) {
            log.debug("closing a channel failed", e);
        }
    }
}
