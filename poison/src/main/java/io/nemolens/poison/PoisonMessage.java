package io.nemolens.poison;

import com.rabbitmq.client.AMQP;
import io.nemolens.consumer.poison.PoisonHeaders;
import io.nemolens.decode.MessageIds;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What an operator needs to know about one message in the poison queue, read from its headers. A
 * message that the processing queue's own dead-letter exchange moved (no {@code x-lens-*} headers,
 * only {@code x-death}) reports category {@value #BROKER_DEAD_LETTERED} and the exchange and routing
 * key from its {@code x-death} entry.
 *
 * @param position 1-based position in the queue when it was inspected
 * @param messageId a hash of the body, the same {@code MessageInfo.messageId()} handlers see
 * @param exchange where it was first published ({@code ""} when unknown)
 * @param routingKey the routing key it was first published with ({@code ""} when unknown)
 * @param category the failure category ({@code decode}, {@code handler}, ...) or {@value #BROKER_DEAD_LETTERED}
 * @param reason the exception message, first line, at most {@value #MAX_REASON} characters
 * @param exceptionClass the exception's class name, {@code ""} when unknown
 * @param firstFailedAt when it failed first, or {@code null} when unknown
 * @param lastFailedAt when it failed last, or {@code null} when unknown
 * @param replayCount how many times it has been replayed already
 * @param deliveryCount how many times the poison queue has delivered it before (quorum queues count inspections too)
 * @param size body size in bytes
 */
public record PoisonMessage(
        int position,
        String messageId,
        String exchange,
        String routingKey,
        String category,
        String reason,
        String exceptionClass,
        @Nullable Instant firstFailedAt,
        @Nullable Instant lastFailedAt,
        int replayCount,
        long deliveryCount,
        int size) {

    /** The category of a message the broker dead-lettered without our headers. */
    public static final String BROKER_DEAD_LETTERED = "dead-lettered";

    static final int MAX_REASON = 200;

    /** Reads a message's headers. */
    static PoisonMessage of(int position, AMQP.BasicProperties props, byte[] body) {
        Map<String, Object> h = props.getHeaders() == null ? Map.of() : props.getHeaders();
        String exchange = text(h.get(PoisonHeaders.ORIGINAL_EXCHANGE));
        String routingKey = text(h.get(PoisonHeaders.ORIGINAL_ROUTING_KEY));
        String category = text(h.get(PoisonHeaders.FAILURE_CATEGORY));
        String reason = firstLine(text(h.get(PoisonHeaders.EXCEPTION_MESSAGE)));
        Instant first = instant(h.get(PoisonHeaders.FIRST_FAILED_AT));
        Instant last = instant(h.get(PoisonHeaders.FAILED_AT));
        Map<?, ?> death = firstDeath(h);
        if (death != null) {
            // moved by the broker: the x-death entry says where from and why
            if (exchange.isEmpty() && h.get(PoisonHeaders.ORIGINAL_EXCHANGE) == null) {
                exchange = text(death.get("exchange"));
            }
            if (routingKey.isEmpty() && death.get("routing-keys") instanceof List<?> keys && !keys.isEmpty()) {
                routingKey = text(keys.get(0));
            }
            if (category.isEmpty()) {
                category = BROKER_DEAD_LETTERED;
                reason = "broker dead-lettered the message (" + text(death.get("reason")) + ") from queue '"
                        + text(death.get("queue")) + "'";
            }
            if (first == null && death.get("time") instanceof java.util.Date time) {
                first = time.toInstant();
                last = last == null ? first : last;
            }
        }
        if (category.isEmpty()) {
            category = "unknown";
        }
        return new PoisonMessage(
                position,
                MessageIds.of(body),
                exchange,
                routingKey,
                category,
                reason,
                text(h.get(PoisonHeaders.EXCEPTION_CLASS)),
                first,
                last,
                (int) number(h.get(PoisonHeaders.REPLAY_COUNT)),
                number(h.get("x-delivery-count")),
                body.length);
    }

    /**
     * What identifies this poisoning of this message in the poison index: the message id and the time
     * of its latest failure ({@code x-lens-failed-at}, else the broker's {@code x-death} time). A
     * replayed message that fails again is a new poisoning, with a new key.
     */
    public String key() {
        return messageId + "@" + (lastFailedAt == null ? "unknown" : lastFailedAt.toString());
    }

    /** Whether the message failed while being read (decode, unknown signal, oversized): the input itself is the problem. */
    public boolean isInputFailure() {
        return ReplayRequest.INPUT_FAILURES.contains(category);
    }

    private static @Nullable Map<?, ?> firstDeath(Map<String, Object> headers) {
        if (headers.get("x-death") instanceof List<?> deaths
                && !deaths.isEmpty()
                && deaths.get(0) instanceof Map<?, ?> d) {
            return d;
        }
        return null;
    }

    static String text(@Nullable Object value) {
        return value == null ? "" : value.toString();
    }

    static long number(@Nullable Object value) {
        if (value instanceof Number n) {
            return n.longValue();
        }
        if (value != null) {
            try {
                return Long.parseLong(value.toString().trim());
            } catch (NumberFormatException e) {
                return 0;
            }
        }
        return 0;
    }

    private static @Nullable Instant instant(@Nullable Object value) {
        if (value == null) {
            return null;
        }
        try {
            return Instant.parse(value.toString());
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        String line = nl < 0 ? s : s.substring(0, nl);
        return line.length() <= MAX_REASON ? line : line.substring(0, MAX_REASON - 3) + "...";
    }
}
