package io.nemolens.app.broker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import io.nemolens.generator.GenerateCommand;
import io.nemolens.testing.ArchiveReader;
import io.nemolens.testing.BrokerCluster;
import io.nemolens.testing.ConsumerProcess;
import io.nemolens.testing.RunningConsumer;
import io.nemolens.testing.TcpProxy;
import io.nemolens.testing.TestTopology;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.rabbit.connection.AbstractConnectionFactory;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import tools.jackson.databind.json.JsonMapper;

/**
 * The service on a three-node RabbitMQ cluster ({@link BrokerCluster}), as an operator runs it: README's jar with the
 * three nodes' addresses, README's generator publishing to the same three addresses at a steady rate.
 *
 * <ul>
 *   <li>While they stream, the node leading the processing queue crashes (SIGKILL; most often the service's own node)
 *       and comes back, then every node is restarted in turn as an operator does it (drained, stopped whole, started,
 *       the next one only once RabbitMQ's own check says stopping it leaves every quorum queue its majority). Every
 *       span reaches the archive once, counted without {@code DISTINCT}; nothing is poisoned; the service's health
 *       never leaves UP while two nodes serve; the longest pause in acknowledgements after each loss is printed.
 *   <li>The connection the service consumes on falls silent (a proxy per node stops passing bytes, sockets open): the
 *       service gives it up within the heartbeat bound and consumes through another node; every span once.
 * </ul>
 */
class BrokerClusterIT {

    private static final int MESSAGES = 1_500;
    private static final int SPANS_PER_MESSAGE = 50;
    private static final int RATE = 20;
    private static final Duration NODE_DOWN = Duration.ofSeconds(2);
    /**
     * How long a connection that falls silent may go unnoticed until the service consumes again: the client gives a
     * connection up after about two heartbeat timeouts without a frame (10 s, the service's default; the Java client
     * reads with a quarter of it as its socket timeout and gives up after eight in a row), and a new connection to the
     * next address takes up to the connection timeout (10 s) per address that takes the TCP connection and never answers.
     */
    private static final Duration HEARTBEAT_BOUND = Duration.ofSeconds(2 * 10 + 3 + 10 + 5);

    private static final Pattern INDEXED = Pattern.compile("id=\"indexed\"[^>]*>(\\d+)<");
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Pattern SENT = Pattern.compile("^sent (\\d+) messages, (\\d+) records", Pattern.MULTILINE);

    private final BrokerCluster cluster = BrokerCluster.get();
    private final List<AutoCloseable> closing = new ArrayList<>();
    private TestTopology topology = TestTopology.unique("BrokerCluster");

    @BeforeEach
    void everyNodeRuns() throws IOException {
        cluster.startAll();
        topology = TestTopology.unique("BrokerCluster");
    }

    @AfterEach
    void cleanUp() throws Exception {
        for (int i = closing.size() - 1; i >= 0; i--) {
            closing.get(i).close();
        }
        cluster.startAll();
        try (Connection c = cluster.connect()) {
            for (String q : List.of(
                    topology.queue(), topology.poisonQueue(), topology.parkingLotQueue(), topology.poisonIndex())) {
                try (Channel ch = c.createChannel()) {
                    ch.queueDelete(q);
                }
            }
        }
    }

    @Test
    void aRollingRestartOfEveryNodeLosesNoSpanAndPoisonsNothing() throws Exception {
        Path archive = archive();
        ConsumerProcess service = startService(Map.of());

        CompletableFuture<String> generated = CompletableFuture.supplyAsync(this::generate);
        Watch watch = new Watch(service);
        closing.add(watch);
        await().atMost(Duration.ofMinutes(1)).until(() -> service.messages("acked") >= 100);

        // a crash of the node that leads the processing queue (most often the service's own: a queue's leader is
        // where the connection that declared it was), then a rolling restart of all three, each node drained first
        List<String> pauses = new ArrayList<>();
        List<Long> pauseMillis = new ArrayList<>();
        BrokerCluster.Node leader = cluster.leaderOf(topology.queue());
        BrokerCluster.Node serving = cluster.servingConsumersOf(topology.queue());
        long crashed = System.nanoTime();
        leader.crash();
        Thread.sleep(NODE_DOWN.toMillis());
        leader.start();
        pauses.add(pause(
                "crash of the queue's leader" + (leader.equals(serving) ? " and the service's node " : " "),
                leader,
                watch,
                crashed,
                pauseMillis,
                generated));
        for (BrokerCluster.Node node : cluster.nodes()) {
            cluster.awaitNotQuorumCritical(node, Duration.ofMinutes(1));
            List<String> roles = new ArrayList<>();
            if (node.equals(cluster.leaderOf(topology.queue()))) {
                roles.add("the queue's leader");
            }
            if (node.equals(cluster.servingConsumersOf(topology.queue()))) {
                roles.add("the service's node");
            }
            String role = "restart of " + (roles.isEmpty() ? "" : String.join(" and ", roles) + " ");
            long stopped = System.nanoTime();
            node.drain();
            node.stop();
            Thread.sleep(NODE_DOWN.toMillis());
            node.start();
            pauses.add(pause(role, node, watch, stopped, pauseMillis, generated));
        }

        String output = generated.get();
        long spans = drained(output);
        assertThat(service.messages("poisoned"))
                .as("the service's poisoned meter")
                .isZero();
        watch.close();
        assertThat(watch.downs())
                .as("health reports while two of three nodes served")
                .isEmpty();
        assertThat(service.stop()).as("exit code after SIGTERM").isIn(0, 143);

        assertArchivedOnce(archive, spans);
        pauses.forEach(p -> System.out.println("node loss: " + p));
        List<Long> sorted = pauseMillis.stream().sorted().toList();
        assertThat(sorted)
                .as("losses whose pause was measured (the crash at least)")
                .isNotEmpty();
        System.out.printf(
                "node loss: pauses in acknowledgements over %d losses: p50 %d ms, max %d ms%n",
                sorted.size(), sorted.get((sorted.size() - 1) / 2), sorted.get(sorted.size() - 1));
        System.out.println("generator: "
                + output.lines()
                        .filter(l -> l.startsWith("confirmed"))
                        .findFirst()
                        .orElse(""));
    }

    @Test
    void aConnectionThatFallsSilentIsGivenUpWithinTheHeartbeatBound() throws Exception {
        // one proxy before each node, as a load balancer's address per node: the service reaches the cluster only
        // through them, and the one before the node it consumes from stops passing anything, sockets left open
        Map<BrokerCluster.Node, TcpProxy> proxies = new LinkedHashMap<>();
        for (BrokerCluster.Node n : cluster.nodes()) {
            TcpProxy proxy = new TcpProxy("127.0.0.1", n.amqpPort()).start();
            closing.add(proxy);
            proxies.put(n, proxy);
        }
        Path archive = archive();
        ConsumerProcess service = startService(Map.of(
                "spring.rabbitmq.addresses",
                proxies.values().stream().map(p -> "127.0.0.1:" + p.port()).collect(Collectors.joining(","))));

        CompletableFuture<String> generated = CompletableFuture.supplyAsync(() -> generate(600));
        Watch watch = new Watch(service);
        closing.add(watch);
        await().atMost(Duration.ofMinutes(1)).until(() -> service.messages("acked") >= 100);
        BrokerCluster.Node serving = cluster.servingConsumersOf(topology.queue());
        assertThat(serving).as("the node the service consumes from").isNotNull();
        long silenced = System.nanoTime();
        proxies.get(serving).silence();
        await().atMost(HEARTBEAT_BOUND.plusSeconds(30))
                .until(() -> watch.ackedAfter(silenced + Duration.ofSeconds(3).toNanos()));
        Duration resumed = watch.firstAckAfterPause(silenced);

        String output = generated.get();
        long spans = drained(output);
        watch.close();
        assertThat(service.stop()).as("exit code after SIGTERM").isIn(0, 143);
        assertArchivedOnce(archive, spans);
        System.out.printf(
                "silent connection to %s: acknowledgements resumed on another node %d ms after the cut (bound %d s)%n",
                serving.name(), resumed.toMillis(), HEARTBEAT_BOUND.toSeconds());
        assertThat(resumed).as("the silent connection given up").isLessThan(HEARTBEAT_BOUND);
    }

    @Test
    void poisonItsIndexReplayAndTheConsoleWorkWhileANodeIsDown() throws Exception {
        Map<String, Object> props = new LinkedHashMap<>(RunningConsumer.withOperator(Map.of()));
        props.put("management.endpoints.web.exposure.include", "health,info,prometheus,poison");
        props.put("management.endpoint.poison.access", "unrestricted");
        props.put("lens.console.anonymous-read", "true");
        props.put("lens.poison.depth-poll-interval", "500ms");
        ConsumerProcess service = startService(props);

        publishUndecodable(5);
        await().atMost(Duration.ofMinutes(1)).until(() -> service.messages("poisoned") == 5);
        await().atMost(Duration.ofSeconds(30)).until(() -> consoleIndexed(service) == 5);

        // the node leading the poison index stream goes away, drained and stopped as in a rolling restart
        BrokerCluster.Node down = cluster.leaderOf(topology.poisonIndex());
        down.drain();
        down.stop();
        try {
            publishUndecodable(3);
            await().atMost(Duration.ofMinutes(1)).until(() -> service.messages("poisoned") == 8);
            assertThat(queued(topology.poisonQueue())).as("the poison queue").isEqualTo(8);
            await().alias("the console's count of the index stream while " + down.name() + " is down")
                    .atMost(Duration.ofSeconds(30))
                    .until(() -> consoleIndexed(service) == 8);
            HttpResponse<String> list = http(service, "GET", "/actuator/poison?max=20", null);
            assertThat(list.statusCode()).as(list.body()).isEqualTo(200);
            assertThat(JSON.readTree(list.body()).path("depth").asLong())
                    .as("the poison queue as the endpoint walks it")
                    .isEqualTo(8);

            HttpResponse<String> replay = http(service, "POST", "/actuator/poison", "{\"includeInputFailures\":true}");
            assertThat(replay.statusCode()).as(replay.body()).isEqualTo(200);
            assertThat(JSON.readTree(replay.body()).path("replayed").asInt())
                    .as(replay.body())
                    .isEqualTo(8);
            // replayed through the surviving nodes, they fail again as they did and are poisoned again, indexed
            await().atMost(Duration.ofMinutes(1)).until(() -> service.messages("poisoned") == 16);
            await().atMost(Duration.ofSeconds(30)).until(() -> queued(topology.poisonQueue()) == 8);
            await().atMost(Duration.ofSeconds(30)).until(() -> consoleIndexed(service) == 8);
        } finally {
            down.start();
        }
        assertThat(service.health().up()).as("health once every node is back").isTrue();
    }

    /** Publishes bodies no decoder reads, confirmed by the cluster. */
    private void publishUndecodable(int count) throws Exception {
        try (Connection c = cluster.connect();
                Channel ch = c.createChannel()) {
            ch.confirmSelect();
            for (int i = 0; i < count; i++) {
                ch.basicPublish(
                        topology.exchange(),
                        "otlp_spans",
                        true,
                        new AMQP.BasicProperties.Builder().deliveryMode(2).build(),
                        ("{not otlp " + i).getBytes(StandardCharsets.UTF_8));
            }
            ch.waitForConfirmsOrDie(30_000);
        }
    }

    /** The console's "indexed" count on its poison page (read without a login: lens.console.anonymous-read). */
    private static long consoleIndexed(ConsumerProcess service) throws Exception {
        HttpResponse<String> page = http(service, "GET", "/console/poison", null);
        Matcher m = INDEXED.matcher(page.body());
        return page.statusCode() == 200 && m.find() ? Long.parseLong(m.group(1)) : -1;
    }

    private static HttpResponse<String> http(ConsumerProcess service, String method, String path, @Nullable String json)
            throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(service.uri(path))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", RunningConsumer.operatorAuthorization());
        if (json == null) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            request.header("Content-Type", "application/json")
                    .method(method, HttpRequest.BodyPublishers.ofString(json));
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** This test's archive folder. */
    private Path archive() {
        return Path.of("target", "broker-cluster-it", topology.queue());
    }

    /**
     * README's jar on the cluster's three addresses, its archive in {@link #archive()}, with {@code extra} on top;
     * closed after the test; returned once its health is UP.
     */
    private ConsumerProcess startService(Map<String, Object> extra) throws IOException {
        Path log = Files.createDirectories(archive().getParent()).resolve(topology.queue() + ".log");
        Map<String, Object> props = new LinkedHashMap<>(cluster.springProperties());
        props.put("lens.archive.path", archive().toAbsolutePath().toString());
        props.putAll(extra);
        ConsumerProcess service = ConsumerProcess.start(topology, log, List.of(), List.of("-Xmx512m"), props);
        closing.add(service);
        await().atMost(Duration.ofMinutes(2)).until(() -> service.health().up());
        return service;
    }

    private static void assertArchivedOnce(Path archive, long spans) throws Exception {
        try (ArchiveReader reader = new ArchiveReader(archive)) {
            assertThat(reader.scalar("SELECT count(*) FROM %s", "spans"))
                    .as("spans archived, counted without DISTINCT, of %d the generator had confirmed", spans)
                    .isEqualTo(spans);
            assertThat(reader.scalar(
                            "SELECT count(*) FROM (SELECT _message_id, _row FROM %s GROUP BY ALL HAVING count(*) > 1)",
                            "spans"))
                    .as("spans archived twice")
                    .isEqualTo(0L);
        }
    }

    /**
     * What a node's loss cost: the longest pause in acknowledgements since it began, kept in {@code pauses}. The
     * window ends with an acknowledgement after the node is back; on a loaded machine the generator's stream may have
     * ended by then (the restarts took longer than it lasts), and that loss's pause is not measured.
     */
    private static String pause(
            String what, BrokerCluster.Node node, Watch watch, long since, List<Long> pauses, Future<?> stream) {
        long back = System.nanoTime();
        await().alias("an acknowledgement after " + node.name() + " is back (or the generator's end)")
                .atMost(Duration.ofSeconds(30))
                .until(() -> watch.ackedAfter(back) || stream.isDone());
        if (!watch.ackedAfter(back)) {
            return what + node.name() + ": the generator's stream had ended before it was back (no pause measured)";
        }
        long millis = watch.longestPauseSince(since).toMillis();
        pauses.add(millis);
        return String.format(
                "%s%s: longest pause in acknowledgements %d ms (down and up again in %d s)",
                what,
                node.name(),
                millis,
                Duration.ofNanos(System.nanoTime() - since).toSeconds());
    }

    /** README's generator, publishing spans to the cluster's three addresses at a steady rate. */
    private String generate() {
        return generate(MESSAGES);
    }

    private String generate(int messages) {
        CachingConnectionFactory connections = new CachingConnectionFactory();
        connections.setAddresses(cluster.addresses());
        connections.setAddressShuffleMode(AbstractConnectionFactory.AddressShuffleMode.RANDOM);
        connections.setUsername("guest");
        connections.setPassword("guest");
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        try {
            int exit = new GenerateCommand(() -> connections, topology.exchange(), Clock.systemUTC())
                    .run(
                            List.of(
                                    "--signals",
                                    "spans",
                                    "--count",
                                    Integer.toString(messages),
                                    "--rate",
                                    Integer.toString(RATE),
                                    "--spans-per-message",
                                    Integer.toString(SPANS_PER_MESSAGE),
                                    "--run-id",
                                    "llama3-8b-cluster",
                                    "--retry-for",
                                    "120"),
                            new PrintStream(printed, true, StandardCharsets.UTF_8));
            String output = printed.toString(StandardCharsets.UTF_8);
            if (exit != 0) {
                throw new IllegalStateException("the generator exited " + exit + ": " + output);
            }
            return output;
        } catch (Exception e) {
            throw new IllegalStateException("the generator failed: " + e, e);
        } finally {
            connections.destroy();
        }
    }

    /**
     * The spans the generator reports it sent (each confirmed, or it would have failed), once the processing queue
     * is empty and nothing went to the poison queue.
     */
    private long drained(String output) throws Exception {
        Matcher sent = SENT.matcher(output);
        assertThat(sent.find()).as(output).isTrue();
        await().atMost(Duration.ofMinutes(2)).until(() -> queued(topology.queue()) == 0);
        assertThat(queued(topology.poisonQueue())).as("messages poisoned").isZero();
        return Long.parseLong(sent.group(2));
    }

    /** Messages in a queue, asked of the cluster (a passive declare). */
    private long queued(String queue) throws Exception {
        try (Connection c = cluster.connect();
                Channel ch = c.createChannel()) {
            return ch.queueDeclarePassive(queue).getMessageCount();
        }
    }

    /**
     * Reads the service's acknowledged-messages meter and its health four times a second: when each
     * acknowledgement count was first seen, and every health report that was not UP.
     */
    private static final class Watch implements AutoCloseable {
        private final List<long[]> acks = new ArrayList<>(); // {nanoTime, acked}
        private final List<String> downs = new ArrayList<>();
        private final Thread thread;
        private volatile boolean closed;

        Watch(ConsumerProcess service) {
            thread = new Thread(
                    () -> {
                        long last = -1;
                        while (!closed) {
                            try {
                                long acked = (long) service.messages("acked");
                                long now = System.nanoTime();
                                if (acked != last) {
                                    synchronized (acks) {
                                        acks.add(new long[] {now, acked});
                                    }
                                    last = acked;
                                }
                                ConsumerProcess.Health health = service.health();
                                if (!health.up()) {
                                    synchronized (downs) {
                                        downs.add(health.status() + " " + health.body());
                                    }
                                }
                                Thread.sleep(250);
                            } catch (InterruptedException e) {
                                return;
                            } catch (RuntimeException e) {
                                synchronized (downs) {
                                    downs.add("no answer: " + e);
                                }
                            }
                        }
                    },
                    "broker-cluster-watch");
            thread.setDaemon(true);
            thread.start();
        }

        /** Whether an acknowledgement was counted after {@code nanoTime}. */
        boolean ackedAfter(long nanoTime) {
            synchronized (acks) {
                return !acks.isEmpty() && acks.get(acks.size() - 1)[0] > nanoTime;
            }
        }

        /**
         * The time from {@code since} to the first acknowledgement after the longest pause that began after it: when
         * consumption resumed.
         */
        Duration firstAckAfterPause(long since) {
            long longest = 0;
            long resumedAt = since;
            synchronized (acks) {
                long previous = since;
                for (long[] a : acks) {
                    if (a[0] < since) {
                        continue;
                    }
                    if (a[0] - previous > longest) {
                        longest = a[0] - previous;
                        resumedAt = a[0];
                    }
                    previous = a[0];
                }
            }
            return Duration.ofNanos(resumedAt - since);
        }

        /** The longest time between two successive new acknowledgement counts since {@code since}. */
        Duration longestPauseSince(long since) {
            long longest = 0;
            synchronized (acks) {
                long previous = since;
                for (long[] a : acks) {
                    if (a[0] < since) {
                        continue;
                    }
                    longest = Math.max(longest, a[0] - previous);
                    previous = a[0];
                }
            }
            return Duration.ofNanos(longest);
        }

        List<String> downs() {
            synchronized (downs) {
                return List.copyOf(downs);
            }
        }

        @Override
        public void close() {
            closed = true;
            thread.interrupt();
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
