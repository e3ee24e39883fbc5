package io.nemolens.topology.testing;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/** Exchange and queue names of one test, unique so tests never see each other's messages. */
public record TestTopology(String exchange, String queue, String poisonQueue, String parkingLotQueue) {

    /** Fresh names with a random suffix. */
    public static TestTopology unique(String testName) {
        String id = testName + "-" + UUID.randomUUID().toString().substring(0, 8);
        return new TestTopology(
                "lens-it." + id + ".raw",
                "lens-it." + id + "-processing",
                "lens-it." + id + "-poison",
                "lens-it." + id + "-poison.parking-lot");
    }

    /** The {@code lens.topology.*} properties naming these. */
    public Map<String, Object> properties() {
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("lens.topology.exchange", exchange);
        props.put("lens.topology.queue", queue);
        props.put("lens.topology.poison-queue", poisonQueue);
        props.put("lens.topology.parking-lot-queue", parkingLotQueue);
        return props;
    }

    /** Deletes the exchange and queues, ignoring what does not exist. */
    public void delete() {
        try (Connection c = TestBroker.get().connect()) {
            for (String q : new String[] {queue, poisonQueue, parkingLotQueue}) {
                try (Channel ch = c.createChannel()) {
                    ch.queueDelete(q);
                } catch (Exception e) {
                    // already gone
                }
            }
            try (Channel ch = c.createChannel()) {
                ch.exchangeDelete(exchange);
            } catch (Exception e) {
                // already gone
            }
        } catch (Exception e) {
            throw new IllegalStateException("could not clean up " + this, e);
        }
    }
}
