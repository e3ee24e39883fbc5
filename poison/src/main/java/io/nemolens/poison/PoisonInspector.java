package io.nemolens.poison;

import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;

/**
 * Lists the poison queue without losing or reordering a message: every message that is there when the
 * inspection starts is read with {@code basic.get} and held, then all are returned at once (see
 * {@link QueueWalk}). AMQP has no browse; this is the closest to one.
 *
 * <p>Each inspection is one delivery of every message: quorum queues count it towards the queue's
 * {@code x-delivery-limit} (1000 for the poison queue), and RabbitMQ 4 <em>drops</em> a message of a
 * queue without dead-letter target that reaches the limit. The report shows each message's delivery
 * count so that the budget is visible; inspect when you need to, not in a loop.
 *
 * @param connectionFactory the broker
 * @param queue the poison queue's name
 * @param inspectLimit read at most this many messages of a deeper queue
 * @param deliveryLimit the poison queue's {@code x-delivery-limit}
 */
public record PoisonInspector(ConnectionFactory connectionFactory, String queue, int inspectLimit, int deliveryLimit) {

    /** How many messages a listing describes one by one when not told otherwise. */
    public static final int DEFAULT_LISTED = 100;

    /**
     * Reads the queue.
     *
     * @param listed how many messages (from the head) to describe one by one; all are counted in the groups
     */
    public PoisonReport inspect(int listed) throws IOException {
        List<PoisonMessage> messages = new ArrayList<>();
        Map<List<String>, GroupCount> groups = new LinkedHashMap<>();
        @Nullable Instant[] oldest = new Instant[1];
        int[] nearLimit = new int[1];
        QueueWalk.Result result = QueueWalk.walk(connectionFactory, queue, inspectLimit, (position, response) -> {
            PoisonMessage m = PoisonMessage.of(position, response.getProps(), response.getBody());
            if (messages.size() < listed) {
                messages.add(m);
            }
            groups.computeIfAbsent(List.of(m.category(), groupReason(m.reason())), k -> new GroupCount())
                    .add(m.routingKey());
            if (QueueWalk.nearDeliveryLimit(m.deliveryCount(), deliveryLimit)) {
                nearLimit[0]++;
            }
            Instant first = m.firstFailedAt();
            if (first != null && (oldest[0] == null || first.isBefore(oldest[0]))) {
                oldest[0] = first;
            }
            return false;
        });
        List<PoisonReport.Group> grouped = groups.entrySet().stream()
                .map(e -> new PoisonReport.Group(
                        e.getKey().get(0),
                        e.getKey().get(1),
                        e.getValue().count,
                        List.copyOf(e.getValue().routingKeys)))
                .sorted(Comparator.comparingInt(PoisonReport.Group::count).reversed())
                .toList();
        return new PoisonReport(queue, result.depth(), result.examined(), oldest[0], grouped, nearLimit[0], messages);
    }

    /**
     * The reason a group is known by: digits masked, so that "line 1, column 31" and "line 1, column 7",
     * or "after 1 attempt(s)" and "after 3 attempt(s)", fall in one group.
     */
    public static String groupReason(String reason) {
        return reason.replaceAll("[0-9]+", "#");
    }

    private static final class GroupCount {
        int count;
        final TreeSet<String> routingKeys = new TreeSet<>();

        void add(String routingKey) {
            count++;
            routingKeys.add(routingKey);
        }
    }
}
