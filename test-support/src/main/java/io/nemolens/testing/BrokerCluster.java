package io.nemolens.testing;

import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * Three RabbitMQ nodes of the machine's own {@code rabbitmq-server}, joined into one cluster, for the tests of a
 * cluster: each node with its own name ({@code lensclusterPIDn1@localhost}, ..., PID the test JVM's), its own AMQP and distribution ports
 * (free ones of the loopback address), its own configuration, data and log folders under one temporary folder. Started
 * once per JVM at the first {@link #get()} (about half a minute), reused by every test of the run, stopped and deleted
 * when the JVM exits. The machine's default broker (5672) is left alone; the nodes share its Erlang cookie.
 *
 * <p>Tests stop and start nodes ({@link Node#stop()}, {@link Node#start()}: the whole node, as an upgrade restarts
 * it) and ask which node leads a quorum queue ({@link #leaderOf}). What they publish and consume goes to
 * {@link #addresses()}, the three nodes' AMQP ports, as a client of a cluster is configured.
 *
 * <p>Where {@code rabbitmq-server} is missing the first {@link #get()} fails and says how to install it; never a
 * skip. As root the scripts run as the {@code rabbitmq} user (Debian's wrappers do so), as {@code rabbitmq} itself they
 * run directly.
 */
public final class BrokerCluster {

    private static final int SIZE = 3;
    private static final String SERVER = "/usr/sbin/rabbitmq-server";
    private static final String CTL = "/usr/sbin/rabbitmqctl";
    private static final String QUEUES = "/usr/sbin/rabbitmq-queues";
    private static final String UPGRADE = "/usr/sbin/rabbitmq-upgrade";
    private static final Duration START = Duration.ofSeconds(90);
    private static final String NODE_PREFIX = "lenscluster";
    private static final Pattern ORPHAN = Pattern.compile("name (" + NODE_PREFIX + "(\\d+)n\\d+) at port");
    private static final Pattern WHITE_SPACE = Pattern.compile("\\s+");
    private static @Nullable BrokerCluster instance;

    private final Path folder;
    private final List<Node> nodes;

    private BrokerCluster(Path folder, List<Node> nodes) {
        this.folder = folder;
        this.nodes = nodes;
    }

    /** The cluster of this JVM, started at the first call. */
    public static synchronized BrokerCluster get() {
        if (instance == null) {
            instance = start();
        }
        return instance;
    }

    private static BrokerCluster start() {
        if (!Files.isExecutable(Path.of(SERVER)) || !Files.isExecutable(Path.of(CTL))) {
            throw new IllegalStateException("The cluster tests start three RabbitMQ nodes from the machine's "
                    + SERVER + ", which is missing: install RabbitMQ (apt-get install -y rabbitmq-server), as .ci/run"
                    + " does.");
        }
        try {
            Path folder = Files.createTempDirectory("lens-rabbit-cluster-");
            // the nodes run as the rabbitmq user, which makes its folders in here
            Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwxrwxrwx"));
            stopOrphans();
            List<Node> nodes = new ArrayList<>();
            long jvm = ProcessHandle.current().pid();
            for (int i = 1; i <= SIZE; i++) {
                nodes.add(new Node(
                        NODE_PREFIX + jvm + "n" + i + "@localhost", freePort(), freePort(), folder.resolve("n" + i)));
            }
            BrokerCluster cluster = new BrokerCluster(folder, nodes);
            Runtime.getRuntime().addShutdownHook(new Thread(cluster::stopAll, "lens-rabbit-cluster-stop"));
            for (Node n : nodes) {
                n.start();
            }
            Node first = nodes.get(0);
            for (Node n : nodes.subList(1, SIZE)) {
                n.ctl("stop_app");
                n.ctl("reset");
                n.ctl("join_cluster", first.name());
                n.ctl("start_app");
                n.ctl("await_startup", "--timeout", String.valueOf(START.toSeconds()));
            }
            String members = first.ctl("cluster_status", "--formatter", "json");
            for (Node n : nodes) {
                if (!members.contains(n.name())) {
                    throw new IllegalStateException(n.name() + " is not in the cluster: " + members);
                }
            }
            return cluster;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the RabbitMQ cluster for the tests: " + e, e);
        }
    }

    /**
     * Stops the nodes of test JVMs that are gone (killed before their shutdown hook ran): their names carry the JVM's
     * pid ({@code lensclusterPIDnN}), so that two runs at once (two worktrees) each have a cluster of their own.
     */
    private static void stopOrphans() throws IOException {
        String names = Node.run(new ProcessBuilder("epmd", "-names"), Duration.ofSeconds(10));
        Matcher m = ORPHAN.matcher(names);
        while (m.find()) {
            long pid = Long.parseLong(m.group(2));
            if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                continue;
            }
            stopQuietly(m.group(1) + "@localhost");
        }
    }

    /** Stops the node of this name if it runs ({@code rabbitmqctl stop}); a node that does not run is no error. */
    private static void stopQuietly(String name) {
        try {
            Node.run(new ProcessBuilder(CTL, "-n", name, "stop"), Duration.ofSeconds(60));
        } catch (IOException | RuntimeException e) {
            // not running
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** The nodes, in the order they joined (the first made the cluster). */
    public List<Node> nodes() {
        return List.copyOf(nodes);
    }

    /** The node of this index, from 0. */
    public Node node(int index) {
        return nodes.get(index);
    }

    /** The nodes' AMQP addresses as {@code spring.rabbitmq.addresses} takes them: {@code 127.0.0.1:p1,...}. */
    public String addresses() {
        return nodes.stream().map(n -> "127.0.0.1:" + n.amqpPort()).collect(Collectors.joining(","));
    }

    /** The {@code spring.rabbitmq.*} properties that point an application at the cluster's three nodes. */
    public Map<String, Object> springProperties() {
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("spring.rabbitmq.addresses", addresses());
        props.put("spring.rabbitmq.username", "guest");
        props.put("spring.rabbitmq.password", "guest");
        props.put("spring.rabbitmq.virtual-host", "/");
        return props;
    }

    /** A connection to the first node that answers, in order; close it. */
    public Connection connect() throws IOException {
        IOException last = null;
        for (Node n : nodes) {
            try {
                return n.connectionFactory().newConnection("lens-test-cluster");
            } catch (IOException | java.util.concurrent.TimeoutException e) {
                last = new IOException(n.name() + ": " + e, e);
            }
        }
        throw last == null ? new IOException("no node") : last;
    }

    /** The node that leads the quorum queue (asked of a running node). */
    public Node leaderOf(String queue) throws IOException {
        String out = anyRunning().ctl("list_queues", "--quiet", "--no-table-headers", "name", "leader");
        for (String[] cols : rows(out)) {
            if (cols.length == 2 && cols[0].equals(queue)) {
                for (Node n : nodes) {
                    if (n.name().equals(cols[1])) {
                        return n;
                    }
                }
            }
        }
        throw new IOException("no quorum queue " + queue + " with a leader: " + out);
    }

    /**
     * The node whose connection serves the queue's consumers (where their channels live), or {@code null} while the
     * queue has none; the first found where several nodes serve some.
     */
    public @Nullable Node servingConsumersOf(String queue) throws IOException {
        String out = anyRunning().ctl("list_consumers", "--quiet", "--no-table-headers", "queue_name", "channel_pid");
        for (String[] cols : rows(out)) {
            if (cols.length == 2 && cols[0].equals(queue)) {
                for (Node n : nodes) {
                    if (cols[1].startsWith("<" + n.name() + ".")) {
                        return n;
                    }
                }
            }
        }
        return null;
    }

    /**
     * Waits until stopping {@code node} leaves every quorum queue with a majority of its members online (RabbitMQ's
     * own check before a node's restart, {@code rabbitmq-queues check_if_node_is_quorum_critical}): the step an
     * operator's rolling restart takes between two nodes.
     */
    public void awaitNotQuorumCritical(Node node, Duration timeout) throws IOException {
        long end = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                Node.run(new ProcessBuilder(QUEUES, "-n", node.name(), "check_if_node_is_quorum_critical"), START);
                return;
            } catch (IOException e) {
                if (System.nanoTime() - end > 0) {
                    throw new IOException(
                            "stopping " + node + " would still leave a quorum queue without a majority" + " after "
                                    + timeout + ": " + e.getMessage(),
                            e);
                }
            }
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
        }
    }

    /** The rows of a table {@code rabbitmqctl} printed without headers, each split at white space. */
    private static List<String[]> rows(String out) {
        return out.lines().map(l -> WHITE_SPACE.split(l.trim())).toList();
    }

    private Node anyRunning() throws IOException {
        for (Node n : nodes) {
            if (n.running()) {
                return n;
            }
        }
        throw new IOException("no node runs");
    }

    /** Starts every node that is stopped (after a test that stopped some), and waits until each runs. */
    public void startAll() throws IOException {
        for (Node n : nodes) {
            if (!n.running()) {
                n.start();
            }
        }
    }

    private void stopAll() {
        for (Node n : nodes) {
            n.stopQuietly();
        }
        try (Stream<Path> files = Files.walk(folder)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // a temporary folder; the machine clears it
        }
    }

    /** One node of the cluster. */
    public static final class Node {
        private final String name;
        private final int amqpPort;
        private final int distPort;
        private final Path folder;
        private volatile boolean running;

        private Node(String name, int amqpPort, int distPort, Path folder) {
            this.name = name;
            this.amqpPort = amqpPort;
            this.distPort = distPort;
            this.folder = folder;
        }

        /** Its Erlang node name, {@code lensclusterPIDnN@localhost}. */
        public String name() {
            return name;
        }

        /** Its AMQP port on 127.0.0.1. */
        public int amqpPort() {
            return amqpPort;
        }

        /** Whether it was started and not stopped since. */
        public boolean running() {
            return running;
        }

        /** A client connection factory for this node alone (guest/guest, no automatic recovery). */
        public ConnectionFactory connectionFactory() {
            ConnectionFactory f = new ConnectionFactory();
            f.setHost("127.0.0.1");
            f.setPort(amqpPort);
            f.setConnectionTimeout(3000);
            f.setAutomaticRecoveryEnabled(false);
            return f;
        }

        /** Starts the node (its data as it left it) and waits until it runs and serves AMQP. */
        public synchronized void start() throws IOException {
            Files.createDirectories(folder);
            Files.setPosixFilePermissions(folder, PosixFilePermissions.fromString("rwxrwxrwx"));
            Path config = folder.resolve("node.conf");
            Files.writeString(
                    config,
                    "listeners.tcp.local = 127.0.0.1:" + amqpPort + "\n"
                            + "loopback_users.guest = true\n"
                            // the tests stop nodes; an alarm on a small disk would block publishers instead
                            + "disk_free_limit.absolute = 50MB\n",
                    StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(config, PosixFilePermissions.fromString("rw-r--r--"));
            Path pid = folder.resolve("node.pid");
            ProcessBuilder pb = new ProcessBuilder(SERVER, "-detached");
            Map<String, String> env = pb.environment();
            env.put("RABBITMQ_NODENAME", name);
            env.put("RABBITMQ_NODE_PORT", String.valueOf(amqpPort));
            env.put("RABBITMQ_DIST_PORT", String.valueOf(distPort));
            env.put("RABBITMQ_CONFIG_FILE", config.toString());
            env.put("RABBITMQ_MNESIA_BASE", folder.resolve("data").toString());
            env.put("RABBITMQ_LOG_BASE", folder.resolve("log").toString());
            env.put("RABBITMQ_PID_FILE", pid.toString());
            env.put(
                    "RABBITMQ_ENABLED_PLUGINS_FILE",
                    folder.resolve("enabled_plugins").toString());
            Files.writeString(folder.resolve("enabled_plugins"), "[].\n", StandardCharsets.UTF_8);
            Files.deleteIfExists(pid);
            run(pb, Duration.ofSeconds(30));
            // the node registers a moment after the script returns: wait for its pid file, then for it to boot
            ctl("wait", pid.toString(), "--timeout", String.valueOf(START.toSeconds()));
            // a node drained before its stop would stay in maintenance mode (its listeners suspended) until revived
            run(new ProcessBuilder(UPGRADE, "-n", name, "revive"), START);
            running = true;
        }

        /**
         * Puts the node into maintenance mode, as an operator does before restarting it ({@code rabbitmq-upgrade
         * drain}): its client connections are closed, its listeners suspended, the leaders of its quorum queues moved to
         * other nodes. {@link #start()} revives it.
         */
        public void drain() throws IOException {
            run(new ProcessBuilder(UPGRADE, "-n", name, "drain"), START);
        }

        /**
         * Kills the node's Erlang VM (SIGKILL, as a crash or a lost machine would: no connection closed, no leader
         * handed over) and waits until it is gone.
         */
        public synchronized void crash() throws IOException {
            running = false;
            long pid = Long.parseLong(Files.readString(folder.resolve("node.pid"), StandardCharsets.UTF_8)
                    .strip());
            ProcessHandle vm = ProcessHandle.of(pid).orElseThrow(() -> new IOException(name + ": no process " + pid));
            vm.destroyForcibly();
            try {
                vm.onExit().get(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                throw new IOException(name + " did not die of SIGKILL: " + e, e);
            }
        }

        /** Stops the whole node (its Erlang VM exits), as an upgrade's restart does, and waits until it is gone. */
        public synchronized void stop() throws IOException {
            running = false;
            ctl("stop");
        }

        private void stopQuietly() {
            running = false;
            BrokerCluster.stopQuietly(name);
        }

        /** Runs {@code rabbitmqctl -n <node> args...} and returns what it printed; fails when it fails. */
        public String ctl(String... args) throws IOException {
            List<String> command = new ArrayList<>(List.of(CTL, "-n", name));
            command.addAll(List.of(args));
            return run(new ProcessBuilder(command), START.plusSeconds(30));
        }

        /**
         * Runs a command, its output into a file (a detached node keeps the pipes of the command that started it
         * open, so a pipe would never end), and returns the output; fails when the command fails or outlasts
         * {@code timeout}.
         */
        private static String run(ProcessBuilder pb, Duration timeout) throws IOException {
            Path output = Files.createTempFile("lens-rabbit-cluster-", ".out");
            try {
                pb.redirectErrorStream(true);
                pb.redirectOutput(output.toFile());
                Process p = pb.start();
                try {
                    if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                        p.destroyForcibly();
                        throw new IOException(pb.command() + " did not end within " + timeout);
                    }
                } catch (InterruptedException e) {
                    p.destroyForcibly();
                    Thread.currentThread().interrupt();
                    throw new IOException(pb.command() + " interrupted", e);
                }
                String text = Files.readString(output, StandardCharsets.UTF_8);
                if (p.exitValue() != 0) {
                    throw new IOException(pb.command() + " exited " + p.exitValue() + ": " + text.strip());
                }
                return text;
            } finally {
                Files.deleteIfExists(output);
            }
        }

        @Override
        public String toString() {
            return name + " (AMQP " + amqpPort + ")";
        }
    }
}
