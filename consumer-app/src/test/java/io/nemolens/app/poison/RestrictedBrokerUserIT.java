package io.nemolens.app.poison;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.GetResponse;
import io.nemolens.app.testing.Commands;
import io.nemolens.app.testing.Commands.Result;
import io.nemolens.app.testing.Service;
import io.nemolens.app.testing.SmallRequests;
import io.nemolens.consumer.poison.PoisonHeaders;
import io.nemolens.poison.PoisonIndex;
import io.nemolens.poison.PoisonInspector;
import io.nemolens.poison.PoisonMessage;
import io.nemolens.poison.PoisonReplayer;
import io.nemolens.poison.ReplayRequest;
import io.nemolens.poison.ReplaySummary;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.RunningConsumer;
import io.nemolens.testing.TestBroker;
import io.nemolens.testing.TestTopology;
import io.nemolens.topology.LensTopology;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.amqp.core.Binding;
import org.springframework.amqp.core.Declarable;
import org.springframework.amqp.core.Exchange;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;

/**
 * The consumer, the jar's poison commands and a collector as broker users restricted to exactly the
 * permissions {@code observability/rabbitmq/README.md} documents (read from that file, so the two cannot
 * drift apart), in a vhost of the test's own with the default names: consume and acknowledge, poison with
 * our {@code x-lens-*} headers (not through the broker's dead-letter fallback), the poison index, replay to
 * the original exchange, the parking lot, and the replay the permissions refuse. The vhost and the users
 * are deleted at the end.
 */
class RestrictedBrokerUserIT {

    private static final Path README = Path.of(System.getProperty("basedir", "."))
            .resolve("../observability/rabbitmq/README.md")
            .normalize();

    /** One documented {@code rabbitmqctl set_permissions -p / USER 'configure' 'write' 'read'} line. */
    private static final Pattern SET_PERMISSIONS =
            Pattern.compile("^rabbitmqctl set_permissions -p / (\\S+) '([^']*)' '([^']*)' '([^']*)'$");

    private static final String RAW = LensTopology.DEFAULT_EXCHANGE;
    /** The dead-letter exchange's documented default name. */
    private static final String DEAD = "nemo_lens.otel.dead";

    private static final String POISON = LensTopology.DEFAULT_POISON_QUEUE;
    private static final String PARKING_LOT = LensTopology.DEFAULT_PARKING_LOT_QUEUE;
    private static final String PROCESSING = LensTopology.DEFAULT_QUEUE;
    /** The default names, in the test's own vhost. */
    private static final TestTopology DEFAULT_NAMES = new TestTopology(RAW, PROCESSING, POISON, PARKING_LOT, DEAD);

    /**
     * Started by the tests, as a restricted user in the test's vhost with the default names; the extension's
     * own topology only names the archive folder here.
     */
    @RegisterExtension
    final ConsumerExtension lens = Service.extension(BreakableHandlers.class)
            .properties(DEFAULT_NAMES.properties())
            .properties(Map.of(
                    "lens.consumer.handler-retry.max-attempts", "1",
                    "lens.consumer.concurrency", "1",
                    "lens.poison.max-replays", "1"))
            .manualStart();

    @RegisterExtension
    final Commands commands = new Commands();

    private final String id = UUID.randomUUID().toString().substring(0, 8);
    private final String vhost = "lens-it-restricted-" + id;
    private final List<String> users = new ArrayList<>();
    private final Map<String, String> passwords = new HashMap<>();
    private Connection admin;

    /** configure, write, read of one documented user. */
    private record Permissions(String user, String configure, String write, String read) {}

    @BeforeEach
    void ownVhost() throws Exception {
        TestBroker broker = TestBroker.get();
        broker.rabbitmqctl("add_vhost", vhost);
        // the test's own (administrator) user publishes by hand and looks at the queues
        broker.rabbitmqctl(
                "set_permissions", "-p", vhost, broker.connectionFactory().getUsername(), ".*", ".*", ".*");
        admin = connect(
                broker.connectionFactory().getUsername(),
                broker.connectionFactory().getPassword());
    }

    @AfterEach
    void deleteVhostAndUsers() throws Exception {
        try {
            lens.stop(); // the consumer goes before its vhost
            if (admin != null && admin.isOpen()) {
                admin.close();
            }
        } finally {
            TestBroker broker = TestBroker.get();
            for (String user : users) {
                broker.rabbitmqctl("delete_user", user);
            }
            broker.rabbitmqctl("delete_vhost", vhost); // with every queue and exchange in it
        }
    }

    @Test
    void theConsumerDeclaringItsTopologyConsumesPoisonsIndexesReplaysAndParks() throws Exception {
        List<Permissions> documented = documentedPermissions();
        String service = user("consumer", documented.get(0));
        String collector = user("collector", documented.get(3));
        consumeAndPoison(service, collector, Map.of(), "run-x", "otlp_spans");
        RunningConsumer consumer = lens.consumer();
        BreakableHandlers.State state = consumer.bean(BreakableHandlers.State.class);
        PoisonIndex index = consumer.bean(PoisonIndex.class);
        assertThat(index.error()).isNull();

        // replay as the poison endpoint and the console do it: as the consumer's user
        state.broken = false;
        PoisonReplayer replayer = consumer.bean(PoisonReplayer.class);
        assertThat(replayer.replay(ReplayRequest.all())).isEqualTo(new ReplaySummary(false, 3, 2, 1, 0, 0, List.of()));
        await().atMost(Duration.ofSeconds(30)).until(() -> state.handled.contains("fail-1"));
        // always-1 fails again and comes back, with its replay count
        await().atMost(Duration.ofSeconds(30)).until(() -> depth(POISON) == 2 && depth(PROCESSING) == 0);
        assertThat(replayer.replay(ReplayRequest.all())).isEqualTo(new ReplaySummary(false, 2, 0, 1, 1, 0, List.of()));
        assertParked("always-1");
        await().atMost(Duration.ofSeconds(30)).until(() -> index.size() == 1);

        // a message put into the processing queue through the default exchange names "" as its original
        // exchange (and the queue's name as routing key, so it is poisoned as unknown-signal): replaying it
        // needs write on amq.default, which no documented user has
        publishAsAdmin("", PROCESSING, SmallRequests.spans("run-x", "direct"));
        await().atMost(Duration.ofSeconds(30)).until(() -> depth(POISON) == 2);
        ReplaySummary refused = replayer.replay(ReplayRequest.of(0, null, "unknown-signal", null, false, false, 0.0));
        assertThat(refused.replayed()).isZero();
        assertThat(refused.failed()).isEqualTo(1);
        assertThat(refused.failures())
                .singleElement()
                .asString()
                .contains("ACCESS_REFUSED")
                .contains("amq.default");
        assertThat(depth(POISON)).isEqualTo(2);
        assertThat(consumer.messages("dead-lettered")).isZero();
    }

    @Test
    void aConsumerOnAProvisionedTopologyAndAnOperatorsCommandsNeedNoConfigurePermission() throws Exception {
        declareAsAdministrator(new LensTopology());
        List<Permissions> documented = documentedPermissions();
        String service = user("consumer", documented.get(1));
        String operator = user("operator", documented.get(2));
        String collector = user("collector", documented.get(3));
        consumeAndPoison(service, collector, Map.of("lens.topology.declare", "false"), "run-y", "otlp_logs");
        RunningConsumer consumer = lens.consumer();
        BreakableHandlers.State state = consumer.bean(BreakableHandlers.State.class);
        PoisonIndex index = consumer.bean(PoisonIndex.class);

        // the operator's commands, as the jar runs them
        pointCommandsAt(operator);
        Result list = commands.run("poison", "list");
        assertThat(list.code()).as(list.out()).isZero();
        assertThat(list.out()).contains("poison queue '" + POISON + "': 3 message(s), 3 examined");

        state.broken = false;
        Result replay = commands.run("poison", "replay");
        assertThat(replay.code()).as(replay.out()).isZero();
        assertThat(replay.out()).contains("replayed 2, skipped 1, parked 0, failed 0 (of 3 examined)");
        await().atMost(Duration.ofSeconds(30)).until(() -> state.handled.contains("fail-1"));
        await().atMost(Duration.ofSeconds(30)).until(() -> depth(POISON) == 2 && depth(PROCESSING) == 0);

        Result park = commands.run("poison", "replay");
        assertThat(park.code()).as(park.out()).isZero();
        assertThat(park.out()).contains("replayed 0, skipped 1, parked 1, failed 0 (of 2 examined)");
        assertParked("always-1");
        // what the commands moved reached the index too: only the decode failure is left
        await().atMost(Duration.ofSeconds(30)).until(() -> index.size() == 1);
        assertThat(index.entries())
                .singleElement()
                .satisfies(e -> assertThat(e.message().category()).isEqualTo("decode"));
        assertThat(consumer.messages("dead-lettered")).isZero();
    }

    /**
     * Starts the consumer as {@code service}, and publishes as {@code collector} one message it takes, one
     * ({@code fail-1}) its handler fails on until it is fixed, one ({@code always-1}, to {@code alwaysRoutingKey})
     * it always fails on, and one it cannot decode: the last three end in the poison queue, put there by our
     * publisher, and in the poison index.
     */
    private void consumeAndPoison(
            String service, String collector, Map<String, Object> extra, String run, String alwaysRoutingKey)
            throws Exception {
        Map<String, Object> props = new LinkedHashMap<>(extra);
        props.put("spring.rabbitmq.username", service);
        props.put("spring.rabbitmq.password", passwords.get(service));
        props.put("spring.rabbitmq.virtual-host", vhost);
        RunningConsumer consumer = lens.start(props);
        BreakableHandlers.State state = consumer.bean(BreakableHandlers.State.class);
        await().atMost(Duration.ofSeconds(60)).until(() -> consumers(PROCESSING) > 0);

        publishAs(collector, "otlp_spans", SmallRequests.spans(run, "ok-1"));
        publishAs(collector, "otlp_spans", SmallRequests.spans(run, "fail-1"));
        publishAs(
                collector,
                alwaysRoutingKey,
                alwaysRoutingKey.equals("otlp_logs")
                        ? SmallRequests.logs(run, "always-1")
                        : SmallRequests.spans(run, "always-1"));
        publishAs(collector, "otlp_spans", "{not otlp".getBytes(StandardCharsets.UTF_8));

        await().atMost(Duration.ofSeconds(60)).until(() -> depth(POISON) == 3 && depth(PROCESSING) == 0);
        assertThat(state.handled).containsExactly("ok-1");
        assertPoisonedByTheConsumer(consumer, 3);
        await().atMost(Duration.ofSeconds(30)).until(() -> consumer.messages("acked") == 1);
        // the poison index: appended through the dead-letter exchange, followed from the stream
        PoisonIndex index = consumer.bean(PoisonIndex.class);
        await().atMost(Duration.ofSeconds(30)).until(() -> index.isCaughtUp() && index.size() == 3);
    }

    /**
     * The poison queue holds {@code count} copies our publisher made (category and reason in
     * {@code x-lens-*} headers), none that the processing queue's own dead-lettering moved.
     */
    private static void assertPoisonedByTheConsumer(RunningConsumer consumer, int count) throws Exception {
        assertThat(consumer.messages("poisoned")).isEqualTo(count);
        assertThat(consumer.messages("dead-lettered")).isZero();
        List<PoisonMessage> messages =
                consumer.bean(PoisonInspector.class).inspect(100).messages();
        assertThat(messages).hasSize(count);
        assertThat(messages)
                .extracting(PoisonMessage::category)
                .containsExactlyInAnyOrder("handler", "handler", "decode");
        assertThat(messages).allSatisfy(m -> {
            assertThat(m.exchange()).isEqualTo(RAW);
            assertThat(m.firstFailedAt()).isNotNull();
        });
    }

    /** The parking lot holds exactly this span or log, with all its headers and why it was parked. */
    private void assertParked(String name) throws Exception {
        await().atMost(Duration.ofSeconds(30)).until(() -> depth(PARKING_LOT) == 1);
        try (Channel channel = admin.createChannel()) {
            GetResponse parked = channel.basicGet(PARKING_LOT, true);
            assertThat(new String(parked.getBody(), StandardCharsets.ISO_8859_1))
                    .contains(name);
            Map<String, Object> headers = parked.getProps().getHeaders();
            assertThat(headers)
                    .containsKeys(
                            PoisonHeaders.PARKED_AT,
                            PoisonHeaders.PARKED_REASON,
                            PoisonHeaders.FAILURE_CATEGORY,
                            PoisonHeaders.EXCEPTION_MESSAGE)
                    .doesNotContainKey("x-death");
            assertThat(headers.get(PoisonHeaders.REPLAY_COUNT)).hasToString("1");
        }
    }

    /** The four documented users' permissions, in the README's order. */
    private static List<Permissions> documentedPermissions() throws IOException {
        List<Permissions> found = new ArrayList<>();
        for (String line : Files.readAllLines(README)) {
            Matcher m = SET_PERMISSIONS.matcher(line.strip());
            if (m.matches()) {
                found.add(new Permissions(m.group(1), m.group(2), m.group(3), m.group(4)));
            }
        }
        assertThat(found)
                .as("rabbitmqctl set_permissions lines in %s", README)
                .extracting(Permissions::user)
                .containsExactly(
                        "nemo_lens-consumer", "nemo_lens-consumer", "nemo_lens-operator", "nemo_lens-collector");
        return found;
    }

    /** A user of this test with exactly these permissions on its vhost. */
    private String user(String role, Permissions permissions) throws Exception {
        String user = "lens-it-" + role + "-" + id;
        String password = "pw-" + UUID.randomUUID();
        TestBroker.get().rabbitmqctl("add_user", user, password);
        users.add(user);
        passwords.put(user, password);
        TestBroker.get()
                .rabbitmqctl(
                        "set_permissions",
                        "-p",
                        vhost,
                        user,
                        permissions.configure(),
                        permissions.write(),
                        permissions.read());
        return user;
    }

    /** What an administrator's import of definitions.json does: the whole topology, declared. */
    private void declareAsAdministrator(LensTopology topology) {
        com.rabbitmq.client.ConnectionFactory factory = TestBroker.get().connectionFactory();
        factory.setVirtualHost(vhost);
        CachingConnectionFactory connectionFactory = new CachingConnectionFactory(factory);
        try {
            RabbitAdmin rabbitAdmin = new RabbitAdmin(connectionFactory);
            for (Declarable d : topology.declarables().getDeclarables()) {
                if (d instanceof Exchange x) {
                    rabbitAdmin.declareExchange(x);
                } else if (d instanceof Queue q) {
                    rabbitAdmin.declareQueue(q);
                }
            }
            for (Declarable d : topology.declarables().getDeclarables()) {
                if (d instanceof Binding b) {
                    rabbitAdmin.declareBinding(b);
                }
            }
        } finally {
            connectionFactory.destroy();
        }
    }

    /** Publishes as this user, as the collector's exporter does: persistent, confirmed, mandatory. */
    private void publishAs(String user, String routingKey, byte[] body) throws Exception {
        try (Connection connection = connect(user, passwords.get(user));
                Channel channel = connection.createChannel()) {
            publish(channel, RAW, routingKey, body);
        }
    }

    private void publishAsAdmin(String exchange, String routingKey, byte[] body) throws Exception {
        try (Channel channel = admin.createChannel()) {
            publish(channel, exchange, routingKey, body);
        }
    }

    private static void publish(Channel channel, String exchange, String routingKey, byte[] body) throws Exception {
        channel.confirmSelect();
        channel.basicPublish(
                exchange,
                routingKey,
                true,
                new AMQP.BasicProperties.Builder().deliveryMode(2).build(),
                body);
        channel.waitForConfirmsOrDie(10_000);
    }

    private Connection connect(String user, String password) throws Exception {
        ConnectionFactory factory = TestBroker.get().connectionFactory();
        factory.setUsername(user);
        factory.setPassword(password);
        factory.setVirtualHost(vhost);
        return factory.newConnection("lens-it-restricted");
    }

    private long depth(String queue) throws Exception {
        try (Channel channel = admin.createChannel()) {
            return channel.queueDeclarePassive(queue).getMessageCount();
        }
    }

    private int consumers(String queue) {
        try (Channel channel = admin.createChannel()) {
            return channel.queueDeclarePassive(queue).getConsumerCount();
        } catch (Exception e) {
            return 0; // not declared yet
        }
    }

    /** The jar's commands run as this user against the test's vhost, with the default names. */
    private void pointCommandsAt(String user) {
        Map<String, Object> props = new LinkedHashMap<>(TestBroker.get().springProperties());
        props.put("spring.rabbitmq.username", user);
        props.put("spring.rabbitmq.password", passwords.get(user));
        props.put("spring.rabbitmq.virtual-host", vhost);
        props.putAll(DEFAULT_NAMES.properties());
        props.put("lens.poison.max-replays", "1");
        commands.pointAt(props);
    }
}
