package io.nemolens.consumer.poison;

import com.rabbitmq.client.AMQP;
import java.util.HashMap;
import java.util.Map;
import org.springframework.amqp.core.MessageDeliveryMode;
import org.springframework.amqp.core.MessageProperties;

/**
 * The AMQP properties a message arrived with, from Spring's {@link MessageProperties}, for its copy in the
 * poison queue: what the publisher set is set again, what it left unset stays unset (Spring's own converter
 * does not round-trip: it publishes a received message as persistent whatever it was, and drops its user
 * id; and the listener reads with {@code DeliveredPropertiesConverter}, so that a message without a content
 * type does not get {@code application/octet-stream}). Two properties move
 * to headers instead, as the broker's own dead-lettering moves the first: {@code expiration}
 * ({@link PoisonHeaders#ORIGINAL_EXPIRATION}; the copy must not expire in the poison queue) and
 * {@code user_id} ({@link PoisonHeaders#ORIGINAL_USER_ID}; the broker refuses a {@code user_id} other than
 * the publishing connection's user).
 */
final class OriginalProperties {

    private OriginalProperties() {}

    /** The properties for the copy of a received message, headers included (a copy the caller may add to). */
    static AMQP.BasicProperties forCopy(MessageProperties received) {
        Map<String, Object> headers = new HashMap<>(received.getHeaders());
        if (received.getReceivedDelayLong() != null) {
            headers.put(MessageProperties.X_DELAY, received.getReceivedDelayLong());
        }
        if (received.getExpiration() != null) {
            headers.put(PoisonHeaders.ORIGINAL_EXPIRATION, received.getExpiration());
        }
        String userId = received.getReceivedUserId() != null ? received.getReceivedUserId() : received.getUserId();
        if (userId != null) {
            headers.put(PoisonHeaders.ORIGINAL_USER_ID, userId);
        }
        MessageDeliveryMode deliveryMode = received.getReceivedDeliveryMode() != null
                ? received.getReceivedDeliveryMode()
                : received.getDeliveryMode();
        return new AMQP.BasicProperties.Builder()
                .contentType(received.getContentType())
                .contentEncoding(received.getContentEncoding())
                .headers(headers.isEmpty() ? null : headers)
                .deliveryMode(deliveryMode == null ? null : MessageDeliveryMode.toInt(deliveryMode))
                .priority(received.getPriority())
                .correlationId(received.getCorrelationId())
                .replyTo(received.getReplyTo())
                .messageId(received.getMessageId())
                .timestamp(received.getTimestamp())
                .type(received.getType())
                .appId(received.getAppId())
                .clusterId(received.getClusterId())
                .build();
    }
}
