package io.nemolens.poison;

import java.time.Instant;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The contents of the poison queue at one moment, as {@link PoisonInspector} saw them.
 *
 * @param queue the poison queue's name
 * @param depth messages ready in the queue when the inspection started
 * @param examined messages read (all of {@code depth} unless it exceeds {@code lens.poison.inspect-limit})
 * @param oldestFailure the earliest first-failure time of the examined messages, or {@code null}
 * @param groups counts by failure category and reason (digits masked as {@code #}), largest first
 * @param nearDeliveryLimit examined messages delivered so often that the broker may soon drop them
 *     ({@code x-delivery-limit}); the next replay parks them
 * @param messages the first examined messages, in queue order (at most the number asked for)
 */
public record PoisonReport(
        String queue,
        long depth,
        int examined,
        @Nullable Instant oldestFailure,
        List<Group> groups,
        int nearDeliveryLimit,
        List<PoisonMessage> messages) {

    public PoisonReport {
        groups = List.copyOf(groups);
        messages = List.copyOf(messages);
    }

    /**
     * How many examined messages share a category and reason.
     *
     * @param category the failure category
     * @param reason the reason (the exception message's first line), digits masked as {@code #}
     * @param count how many messages
     * @param routingKeys the routing keys among them
     */
    public record Group(String category, String reason, int count, List<String> routingKeys) {
        public Group {
            routingKeys = List.copyOf(routingKeys);
        }
    }
}
