package io.nemolens.testing;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Exchange and queue names of one test, unique so tests never see each other's messages; and the folder its
 * archive goes to.
 */
public record TestTopology(
        String exchange, String queue, String poisonQueue, String parkingLotQueue, String deadLetterExchange) {

    /** Fresh names with a random suffix. */
    public static TestTopology unique(String testName) {
        String id = testName + "-" + UUID.randomUUID().toString().substring(0, 8);
        return new TestTopology(
                "lens-it." + id + ".raw",
                "lens-it." + id + "-processing",
                "lens-it." + id + "-poison",
                "lens-it." + id + "-poison.parking-lot",
                "lens-it." + id + ".dead");
    }

    /** The poison index stream's name ({@code LensTopology.poisonIndexName()}). */
    public String poisonIndex() {
        return poisonQueue + ".index";
    }

    /**
     * The archive folder of this test's applications, {@code target/test-archives/<queue>} (relative to the
     * module): {@link RunningConsumer} points {@code lens.archive.path} there unless told otherwise.
     */
    public Path archive() {
        return Path.of("target", "test-archives", queue);
    }

    /** The {@code lens.topology.*} properties naming these. */
    public Map<String, Object> properties() {
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("lens.topology.exchange", exchange);
        props.put("lens.topology.dead-letter-exchange", deadLetterExchange);
        props.put("lens.topology.queue", queue);
        props.put("lens.topology.poison-queue", poisonQueue);
        props.put("lens.topology.parking-lot-queue", parkingLotQueue);
        return props;
    }

    /**
     * The command line that starts an application against the test broker with these names, as a user
     * passes properties ({@code --name=value}; default properties would rank below {@code application.yml}):
     * the broker's {@code spring.rabbitmq.*}, these {@code lens.topology.*}, a random server port, no banner,
     * then {@code extra}, which wins.
     */
    public String[] applicationArguments(Map<String, Object> extra) {
        Map<String, Object> props = new LinkedHashMap<>(TestBroker.get().springProperties());
        props.putAll(properties());
        props.put("server.port", "0");
        props.put("spring.main.banner-mode", "off");
        props.putAll(extra);
        return props.entrySet().stream()
                .map(e -> "--" + e.getKey() + "=" + e.getValue())
                .toArray(String[]::new);
    }

    /** Deletes the exchange and queues, ignoring what does not exist. */
    public void delete() {
        try (Connection c = TestBroker.get().connect()) {
            for (String q : new String[] {queue, poisonQueue, parkingLotQueue, poisonIndex()}) {
                try (Channel ch = c.createChannel()) {
                    ch.queueDelete(q);
                } catch (Exception e) {
                    // already gone
                }
            }
            for (String x : new String[] {exchange, deadLetterExchange}) {
                try (Channel ch = c.createChannel()) {
                    ch.exchangeDelete(x);
                } catch (Exception e) {
                    // already gone
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("could not clean up " + this, e);
        }
    }
}
