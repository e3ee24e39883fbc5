package io.nemolens.consumer.listener;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Envelope;
import org.jspecify.annotations.Nullable;
import org.springframework.amqp.core.MessageProperties;
import org.springframework.amqp.rabbit.support.DefaultMessagePropertiesConverter;

/**
 * Spring's converter of delivered properties, except that a content type and a priority the publisher
 * left unset stay unset ({@code null}) instead of becoming {@code application/octet-stream} and {@code 0}:
 * the encoding is then detected from the body, and a poisoned copy carries no property its original did
 * not have.
 */
public final class DeliveredPropertiesConverter extends DefaultMessagePropertiesConverter {

    @Override
    @SuppressWarnings("NullAway") // null is "unset"; Spring AMQP 4.0.5 makes these setters @Nullable (gh-3487)
    public MessageProperties toMessageProperties(
            AMQP.BasicProperties source, @Nullable Envelope envelope, String charset) {
        MessageProperties properties = super.toMessageProperties(source, envelope, charset);
        if (source.getContentType() == null) {
            properties.setContentType(null);
        }
        if (source.getPriority() == null) {
            properties.setPriority(null);
        }
        return properties;
    }
}
