package io.nemolens.app.poison;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.GetResponse;
import io.nemolens.app.testing.Service;
import io.nemolens.consumer.poison.PoisonHeaders;
import io.nemolens.testing.ConsumerExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A poisoned copy keeps the properties of the message it copies: what the publisher set is there
 * unchanged, what it left unset stays unset (no {@code application/octet-stream} where there was no content
 * type), and the headers are the original ones plus ours ({@code x-lens-*}, {@code x-exception-*},
 * {@code x-original-*}); only {@code expiration} and {@code user_id} move to headers, as the broker's own
 * dead-lettering moves the expiration.
 */
class PoisonedCopyPropertiesIT {

    private static final byte[] NOT_OTLP = "{not otlp".getBytes(StandardCharsets.UTF_8);

    @RegisterExtension
    final ConsumerExtension lens = Service.extension();

    @Test
    void aMessageAsTheCollectorPublishesItKeepsItsFewPropertiesAndGainsNoOthers() throws Exception {
        AMQP.BasicProperties collector =
                new AMQP.BasicProperties.Builder().deliveryMode(2).build();

        AMQP.BasicProperties copy = poison(collector);

        assertThat(copy.getContentType()).isNull();
        assertThat(copy.getContentEncoding()).isNull();
        assertThat(copy.getDeliveryMode()).isEqualTo(2);
        assertThat(copy.getPriority()).isNull();
        assertThat(copy.getCorrelationId()).isNull();
        assertThat(copy.getReplyTo()).isNull();
        assertThat(copy.getExpiration()).isNull();
        assertThat(copy.getMessageId()).isNull();
        assertThat(copy.getTimestamp()).isNull();
        assertThat(copy.getType()).isNull();
        assertThat(copy.getUserId()).isNull();
        assertThat(copy.getAppId()).isNull();
        assertThat(originalHeaders(copy)).isEmpty();
        assertThat(copy.getHeaders()).containsKeys(PoisonHeaders.FAILURE_CATEGORY, PoisonHeaders.EXCEPTION_MESSAGE);
    }

    @Test
    void everyPropertyAPublisherSetIsKeptUnchanged() throws Exception {
        Map<String, Object> headers = new LinkedHashMap<>();
        headers.put("tenant", "team-a");
        headers.put("attempt", 7);
        headers.put("note", "n".repeat(2000)); // longer than Spring's 1024-byte long-string limit
        AMQP.BasicProperties original = new AMQP.BasicProperties.Builder()
                .contentType("text/plain")
                .contentEncoding("identity")
                .deliveryMode(1)
                .priority(3)
                .correlationId("corr-1")
                .replyTo("nowhere")
                .expiration("600000")
                .messageId("msg-42")
                .timestamp(new Date(1_764_000_000_000L))
                .type("otlp")
                .userId("guest")
                .appId("collector")
                .headers(headers)
                .build();

        AMQP.BasicProperties copy = poison(original);

        assertThat(copy.getContentType()).isEqualTo("text/plain");
        assertThat(copy.getContentEncoding()).isEqualTo("identity");
        assertThat(copy.getDeliveryMode()).isEqualTo(1);
        assertThat(copy.getPriority()).isEqualTo(3);
        assertThat(copy.getCorrelationId()).isEqualTo("corr-1");
        assertThat(copy.getReplyTo()).isEqualTo("nowhere");
        // the copy must not expire in the poison queue, nor carry another user's id: both move to headers
        assertThat(copy.getExpiration()).isNull();
        assertThat(copy.getHeaders().get(PoisonHeaders.ORIGINAL_EXPIRATION)).hasToString("600000");
        assertThat(copy.getMessageId()).isEqualTo("msg-42");
        assertThat(copy.getTimestamp()).isEqualTo(new Date(1_764_000_000_000L));
        assertThat(copy.getType()).isEqualTo("otlp");
        assertThat(copy.getUserId()).isNull();
        assertThat(copy.getHeaders().get(PoisonHeaders.ORIGINAL_USER_ID)).hasToString("guest");
        assertThat(copy.getAppId()).isEqualTo("collector");
        Map<String, Object> kept = originalHeaders(copy);
        assertThat(kept).containsOnlyKeys("tenant", "attempt", "note");
        assertThat(kept.get("tenant")).hasToString("team-a");
        assertThat(kept.get("attempt")).isEqualTo(7);
        assertThat(kept.get("note")).hasToString("n".repeat(2000));
    }

    /** Publishes an undecodable body with these properties and returns the poisoned copy's. */
    private AMQP.BasicProperties poison(AMQP.BasicProperties properties) throws Exception {
        lens.client().publish(lens.topology().exchange(), "otlp_spans", properties, NOT_OTLP);
        List<GetResponse> poisoned = new ArrayList<>();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            poisoned.addAll(lens.client().drain(lens.topology().poisonQueue()));
            return !poisoned.isEmpty();
        });
        assertThat(poisoned).hasSize(1);
        GetResponse copy = poisoned.get(0);
        assertThat(copy.getBody()).isEqualTo(NOT_OTLP);
        assertThat(String.valueOf(copy.getProps().getHeaders().get(PoisonHeaders.FAILURE_CATEGORY)))
                .isEqualTo("decode");
        return copy.getProps();
    }

    /** The headers of a copy that are not ours (nor the broker's delivery count). */
    private static Map<String, Object> originalHeaders(AMQP.BasicProperties copy) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (copy.getHeaders() != null) {
            copy.getHeaders().forEach((k, v) -> {
                if (!k.startsWith("x-lens-")
                        && !k.startsWith("x-exception-")
                        && !k.startsWith("x-original-")
                        && !k.equals("x-delivery-count")) {
                    out.put(k, v);
                }
            });
        }
        return out;
    }
}
