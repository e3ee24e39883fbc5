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
import io.nemolens.testing.BrokerClient;
import io.nemolens.testing.RunningConsumer;
import io.nemolens.testing.TestTopology;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Listings count against the poison queue's {@code x-delivery-limit}, where the broker drops a message:
 * a message close to it is reported, and the next replay parks it (even when the filter does not select
 * it) instead of returning it once more. Here with a delivery limit of 15 (margin 1).
 */
class PoisonDeliveryLimitIT {

    private TestTopology topology;
    private RunningConsumer consumer;

    @AfterEach
    void stop() {
        if (consumer != null) {
            consumer.close();
        }
        topology.delete();
    }

    @Test
    void aMessageNearTheDeliveryLimitIsParkedInsteadOfDropped() throws Exception {
        topology = TestTopology.unique("delivery-limit");
        consumer = Service.start(topology, Map.of("lens.topology.delivery-limit", "15"));
        try (BrokerClient client = new BrokerClient()) {
            client.publish(topology.exchange(), "otlp_spans", "{broken".getBytes(StandardCharsets.UTF_8));
            await().atMost(Duration.ofSeconds(30)).until(() -> client.messageCount(topology.poisonQueue()) == 1);
            PoisonInspector inspector = consumer.bean(PoisonInspector.class);
            PoisonReport report = null;
            for (int i = 0; i < 14; i++) {
                report = inspector.inspect(1);
                assertThat(report.examined()).as("listing %d", i + 1).isEqualTo(1);
            }
            assertThat(report.messages().get(0).deliveryCount()).isEqualTo(13);
            assertThat(report.nearDeliveryLimit()).isZero();
            assertThat(inspector.inspect(1).nearDeliveryLimit()).isEqualTo(1);

            ReplaySummary summary = consumer.bean(PoisonReplayer.class)
                    .replay(new ReplayRequest(0, "no-such-routing-key", null, null, false, false, 0));

            assertThat(summary).isEqualTo(new ReplaySummary(false, 1, 0, 0, 1, 0, List.of()));
            assertThat(client.messageCount(topology.poisonQueue())).isZero();
            List<GetResponse> parked = client.drain(topology.parkingLotQueue());
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
}
