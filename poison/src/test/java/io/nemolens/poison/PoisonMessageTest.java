package io.nemolens.poison;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import io.nemolens.consumer.poison.PoisonHeaders;
import java.time.Instant;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PoisonMessageTest {

    @Test
    void readsOurHeaders() {
        Map<String, Object> h = new HashMap<>();
        h.put(PoisonHeaders.ORIGINAL_EXCHANGE, "nemo_lens.otel.raw");
        h.put(PoisonHeaders.ORIGINAL_ROUTING_KEY, "otlp_spans");
        h.put(PoisonHeaders.FAILURE_CATEGORY, "handler");
        h.put(PoisonHeaders.EXCEPTION_MESSAGE, "first line\nsecond line");
        h.put(PoisonHeaders.FIRST_FAILED_AT, "2026-11-29T10:00:00Z");
        h.put(PoisonHeaders.FAILED_AT, "2026-11-29T11:00:00Z");
        h.put(PoisonHeaders.REPLAY_COUNT, 2);
        h.put("x-delivery-count", 7L);

        PoisonMessage m = PoisonMessage.of(3, props(h), new byte[] {1, 2, 3});

        assertThat(m.position()).isEqualTo(3);
        assertThat(m.messageId()).hasSize(32);
        assertThat(m.exchange()).isEqualTo("nemo_lens.otel.raw");
        assertThat(m.routingKey()).isEqualTo("otlp_spans");
        assertThat(m.category()).isEqualTo("handler");
        assertThat(m.reason()).isEqualTo("first line");
        assertThat(m.firstFailedAt()).isEqualTo(Instant.parse("2026-11-29T10:00:00Z"));
        assertThat(m.lastFailedAt()).isEqualTo(Instant.parse("2026-11-29T11:00:00Z"));
        assertThat(m.replayCount()).isEqualTo(2);
        assertThat(m.deliveryCount()).isEqualTo(7);
        assertThat(m.size()).isEqualTo(3);
        assertThat(m.isInputFailure()).isFalse();
    }

    @Test
    void aBrokerDeadLetterIsReadFromItsXDeathEntry() {
        Date time = new Date(1_800_000_000_000L);
        Map<String, Object> death = Map.of(
                "exchange",
                "nemo_lens.otel.raw",
                "routing-keys",
                List.of("otlp_logs"),
                "reason",
                "rejected",
                "queue",
                "nemo_lens-processing",
                "time",
                time,
                "count",
                1L);
        PoisonMessage m = PoisonMessage.of(1, props(Map.of("x-death", List.of(death))), new byte[0]);

        assertThat(m.category()).isEqualTo(PoisonMessage.BROKER_DEAD_LETTERED);
        assertThat(m.exchange()).isEqualTo("nemo_lens.otel.raw");
        assertThat(m.routingKey()).isEqualTo("otlp_logs");
        assertThat(m.reason()).contains("rejected").contains("nemo_lens-processing");
        assertThat(m.firstFailedAt()).isEqualTo(time.toInstant());
        assertThat(m.replayCount()).isZero();
    }

    @Test
    void aMessageWithoutHeadersHasAnUnknownCategoryAndNoTarget() {
        PoisonMessage m = PoisonMessage.of(1, props(null), new byte[0]);
        assertThat(m.category()).isEqualTo("unknown");
        assertThat(m.exchange()).isEmpty();
        assertThat(m.routingKey()).isEmpty();
        assertThat(m.firstFailedAt()).isNull();
    }

    @Test
    void longReasonsAreCut() {
        PoisonMessage m =
                PoisonMessage.of(1, props(Map.of(PoisonHeaders.EXCEPTION_MESSAGE, "x".repeat(1000))), new byte[0]);
        assertThat(m.reason()).hasSize(PoisonMessage.MAX_REASON).endsWith("...");
    }

    @Test
    void groupsMaskDigits() {
        assertThat(PoisonInspector.groupReason("malformed at line 1, column 31"))
                .isEqualTo("malformed at line #, column #");
    }

    private static AMQP.BasicProperties props(Map<String, Object> headers) {
        return new AMQP.BasicProperties.Builder().headers(headers).build();
    }
}
