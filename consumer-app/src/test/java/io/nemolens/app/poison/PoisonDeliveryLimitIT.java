package io.nemolens.app.poison;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.GetResponse;
import io.nemolens.app.testing.Service;
import io.nemolens.consumer.poison.PoisonHeaders;
import io.nemolens.poison.PoisonInspector;
import io.nemolens.poison.PoisonReplayer;
import io.nemolens.poison.PoisonReport;
import io.nemolens.poison.ReplayRequest;
import io.nemolens.poison.ReplaySummary;
import io.nemolens.testing.ConsumerExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Listings count against the poison queue's {@code x-delivery-limit}, where the broker drops a message:
 * a message close to it is reported, and the next replay parks it (even when the filter does not select
 * it) instead of returning it once more. Here with a delivery limit of 15 (margin 1).
 */
class PoisonDeliveryLimitIT {

    @RegisterExtension
    final ConsumerExtension lens = Service.extension().property("lens.topology.delivery-limit", "15");

    @Test
    void aMessageNearTheDeliveryLimitIsParkedInsteadOfDropped() throws Exception {
        lens.publish("otlp_spans", "{broken".getBytes(StandardCharsets.UTF_8));
        await().atMost(Duration.ofSeconds(30)).until(() -> lens.poisoned() == 1);
        PoisonInspector inspector = lens.bean(PoisonInspector.class);
        PoisonReport report = null;
        for (int i = 0; i < 14; i++) {
            report = inspector.inspect(1);
            assertThat(report.examined()).as("listing %d", i + 1).isEqualTo(1);
        }
        assertThat(report.messages().get(0).deliveryCount()).isEqualTo(13);
        assertThat(report.nearDeliveryLimit()).isZero();
        assertThat(inspector.inspect(1).nearDeliveryLimit()).isEqualTo(1);

        ReplaySummary summary = lens.bean(PoisonReplayer.class)
                .replay(ReplayRequest.of(0, "no-such-routing-key", null, null, false, false, 0.0));

        assertThat(summary).isEqualTo(new ReplaySummary(false, 1, 0, 0, 1, 0, List.of()));
        assertThat(lens.poisoned()).isZero();
        List<GetResponse> parked = lens.client().drain(lens.topology().parkingLotQueue());
        assertThat(parked).hasSize(1);
        assertThat(parked.get(0)
                        .getProps()
                        .getHeaders()
                        .get(PoisonHeaders.PARKED_REASON)
                        .toString())
                .contains("x-delivery-limit of 15");
        assertThat(parked.get(0).getProps().getHeaders().get(PoisonHeaders.FAILURE_CATEGORY))
                .hasToString("decode");
    }
}
