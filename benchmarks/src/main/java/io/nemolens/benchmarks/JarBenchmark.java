package io.nemolens.benchmarks;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.nemolens.handlers.Encoding;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.NavigableMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * The bench's headline (issue 46): <b>README's jar</b> ({@link ServiceJar}: README's command in a process of its own,
 * default settings, Tomcat, actuator, console and INFO logs on, its Prometheus endpoint scraped every 15 s as
 * Prometheus would) against the <b>standalone prototype</b> ({@link PrototypeBench}: issue 20's yardstick in a JVM
 * of its own), both on this JVM's {@code java}, on the same messages, in alternating pairs (the jar first in odd
 * passes), per case: protobuf from 16 interleaved runs, protobuf from one hot run, OTLP/JSON from 16 runs (the
 * prototype reads the same messages as protobuf, the yardstick OTLP/JSON is held to).
 *
 * <p>A measured run of the jar: its listener paused, its queue filled with the pass's messages, then its CPU time
 * and histogram read and the clock started; the listener resumed; the clock stops when its {@code listener}
 * endpoint (polled every {@value #SLOW_POLL_MILLIS} ms, every {@value #POLL_MILLIS} ms over the last 5 % of the
 * messages) counts every message acknowledged (acknowledged means durable in its spool); paused again. Before the passes, the jar warms up in rounds until its JIT compiler (its
 * {@code jvm_compilation_time_ms_total}) is quiet, as the prototype does. At the end the jar is stopped with
 * SIGTERM and every span it was sent is counted, once, in its committed Parquet files (DuckDB), and what is left
 * in its spool is weighed.
 *
 * <p>Options: those of {@link EndToEndBenchmark} that apply ({@code --messages} per run, {@code --passes} pairs
 * per case, {@code --warmup}, {@code --warmup-rounds}, {@code --spans}, {@code --amqp-uri}), and
 * {@code --cases protobuf/16,protobuf/1,json/16} (encoding/runs), {@code --jar-jvm OPTION} (one more JVM option
 * for the jar, e.g. a flight recording), {@code --jar PATH} (another copy of the exec jar; by default
 * {@code consumer-app/target/lens-consumer-app-*-exec.jar}).
 */
public final class JarBenchmark {

    static final int POLL_MILLIS = 10;

    static final int SLOW_POLL_MILLIS = 200;

    /** Issue 46's targets, README's jar / the protobuf prototype, by case. */
    static double target(Case c) {
        if (c.encoding() == Encoding.JSON) {
            return 1.0;
        }
        return c.runs() == 1 ? 1.7 : 1.5;
    }

    /** One case: the messages' encoding and how many runs they interleave. */
    record Case(Encoding encoding, int runs) {

        static List<Case> parse(String list) {
            return Arrays.stream(list.split(",", -1))
                    .map(String::trim)
                    .map(c -> {
                        String[] parts = c.split("/", -1);
                        if (parts.length != 2) {
                            throw new IllegalArgumentException("--cases: not encoding/runs: " + c);
                        }
                        return new Case(
                                Encoding.valueOf(parts[0].toUpperCase(Locale.ROOT)), Integer.parseInt(parts[1]));
                    })
                    .toList();
        }

        String tag() {
            return encoding.tag() + "/" + runs;
        }
    }

    /** One measured run of the jar. */
    record JarRun(
            long messages,
            long spans,
            long bytes,
            double seconds,
            double p50Millis,
            double p99Millis,
            double meanMillis,
            double cpuSeconds,
            double brokerCpuSeconds,
            double gcSeconds) {

        double spansPerSecond() {
            return spans / seconds;
        }
    }

    /** A pair: the jar's run and the prototype's on the same messages. */
    record Pair(JarRun jar, PrototypeBench.Run prototype, boolean prototypeFirst) {

        double ratio() {
            return jar.spansPerSecond() / prototype.result().spansPerSecond();
        }
    }

    private JarBenchmark() {}

    public static void main(String[] args) throws Exception {
        List<String> rest = new ArrayList<>();
        String cases = "protobuf/16,protobuf/1,json/16";
        List<String> jarJvm = new ArrayList<>();
        Path jar = null;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--cases") && i + 1 < args.length) {
                cases = args[++i];
            } else if (args[i].equals("--jar") && i + 1 < args.length) {
                jar = Path.of(args[++i]).toAbsolutePath();
            } else if (args[i].equals("--jar-jvm") && i + 1 < args.length) {
                String option = args[++i].trim();
                if (!option.isEmpty() && !option.equals("none")) {
                    jarJvm.add(option);
                }
            } else {
                rest.add(args[i]);
            }
        }
        BenchSettings settings = BenchSettings.parse(rest.toArray(String[]::new));
        List<Case> caseList = Case.parse(cases);
        if (jar == null) {
            jar = ServiceJar.readmeJar();
        }
        System.out.printf(
                Locale.ROOT,
                "jar bench: README's command (java %s%s -jar %s, default settings; Prometheus scrapes every 15 s)"
                        + " against the %s, %d messages x %d spans per run, %d alternating pairs per case, cases %s;"
                        + " Java %s (%s), %d cores%n",
                String.join(" ", ServiceJar.README_JVM_OPTIONS),
                jarJvm.isEmpty() ? "" : " " + String.join(" ", jarJvm),
                jar.getFileName(),
                PrototypeBench.LABEL,
                settings.messages(),
                settings.spans(),
                settings.passes(),
                caseList.stream().map(Case::tag).collect(Collectors.joining(", ")),
                System.getProperty("java.version"),
                ProcessHandle.current().info().command().orElse("?"),
                Runtime.getRuntime().availableProcessors());
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(settings.amqpUri());
        List<String> summary = new ArrayList<>();
        try (Connection connection = factory.newConnection("lens-bench-jar");
                Channel ch = connection.createChannel()) {
            ch.confirmSelect();
            try (ServiceJar service =
                            ServiceJar.start(jar, factory, BenchConsumer.freshTopology("lens-bench-jar"), jarJvm);
                    PrototypeBench prototype = PrototypeBench.start(settings.amqpUri(), ch)) {
                ScheduledExecutorService prometheus = scrapeEvery15s(service);
                try {
                    PrototypeComparison.printDefinition("jar", prototype.jvm());
                    long sent = 0;
                    AtomicLong next = new AtomicLong();
                    boolean prototypeWarm = false;
                    for (Case c : caseList) {
                        BenchSettings s = settings.withRuns(c.runs());
                        sent += warmUp(ch, service, c, s, next);
                        if (!prototypeWarm) {
                            int first = (int) next.getAndAdd((long) s.warmup() * s.warmupRounds());
                            prototype.warmUp(
                                    "jar prototype",
                                    i -> s.body(Encoding.PROTOBUF, i),
                                    first,
                                    s.warmup(),
                                    s.warmupRounds());
                            prototypeWarm = true;
                        }
                        List<Pair> pairs = new ArrayList<>();
                        for (int pass = 1; pass <= s.passes(); pass++) {
                            int first = (int) next.getAndAdd(s.messages());
                            boolean prototypeFirst = pass % 2 == 0;
                            IntFunction<byte[]> prototypeBodies = i -> s.body(Encoding.PROTOBUF, i);
                            PrototypeBench.Run p;
                            JarRun j;
                            if (prototypeFirst) {
                                p = prototype.measure(prototypeBodies, first, s.messages());
                                j = measure(ch, service, c, s, first);
                            } else {
                                j = measure(ch, service, c, s, first);
                                p = prototype.measure(prototypeBodies, first, s.messages());
                            }
                            sent += s.messages();
                            Pair pair = new Pair(j, p, prototypeFirst);
                            printPair(c.tag() + " #" + pass, pair);
                            pairs.add(pair);
                        }
                        summary.add(printMedians(c, pairs));
                    }
                    prometheus.shutdownNow();
                    stopAndCheck(service, sent, settings.spans());
                } finally {
                    prometheus.shutdownNow();
                }
            }
        }
        System.out.println("jar summary (medians; README's jar / the standalone prototype, protobuf):");
        summary.forEach(line -> System.out.println("  " + line));
    }

    /**
     * Rounds of {@code --warmup} messages, until the jar's JIT compiler worked less than 5 % of two rounds in a row
     * (at least three, at most {@code --warmup-rounds}); returns the messages sent.
     */
    private static long warmUp(Channel ch, ServiceJar service, Case c, BenchSettings s, AtomicLong next)
            throws Exception {
        WarmUpRule rule = new WarmUpRule(c.tag() + " jar");
        long sent = 0;
        for (int round = 0; round < s.warmupRounds(); round++) {
            int first = (int) next.getAndAdd(s.warmup());
            BenchPublishing.fill(ch, service.topology(), c.encoding(), s, first, first + s.warmup());
            double jit0 = new PrometheusText(service.prometheus()).sum("jvm_compilation_time_ms_total");
            long acked0 = service.acknowledged();
            long t0 = System.nanoTime();
            service.resume();
            awaitAcknowledged(service, acked0 + s.warmup(), s.warmup() / 20, "warm-up round " + (round + 1));
            long millis = (System.nanoTime() - t0) / 1_000_000;
            service.pause();
            double jit = new PrometheusText(service.prometheus()).sum("jvm_compilation_time_ms_total") - jit0;
            sent += s.warmup();
            if (rule.steadyAfter(round, s.warmup(), millis, (long) jit)) {
                break;
            }
        }
        return sent;
    }

    /** One measured run of the jar on messages {@code first} on. */
    private static JarRun measure(Channel ch, ServiceJar service, Case c, BenchSettings s, int first) throws Exception {
        long bytes = BenchPublishing.fill(ch, service.topology(), c.encoding(), s, first, first + s.messages());
        PrometheusText before = new PrometheusText(service.prometheus());
        long acked0 = service.acknowledged();
        long cpu0 = ProcessCpu.ofPid(service.pid());
        ProcessCpu broker0 = ProcessCpu.now(ProcessCpu.BROKER);
        long t0 = System.nanoTime();
        service.resume();
        awaitAcknowledged(service, acked0 + s.messages(), s.messages() / 20, "a measured run");
        long t1 = System.nanoTime();
        long cpu1 = ProcessCpu.ofPid(service.pid());
        ProcessCpu broker1 = ProcessCpu.now(ProcessCpu.BROKER);
        service.pause();
        PrometheusText after = new PrometheusText(service.prometheus());
        long left = ch.messageCount(service.topology().queueName());
        long poisoned = ch.messageCount(service.topology().poisonQueueName());
        if (left != 0 || poisoned != 0) {
            throw new IllegalStateException(
                    "README's jar left " + left + " messages in its queue and poisoned " + poisoned);
        }
        String latency = "lens_ack_latency_seconds";
        NavigableMap<Double, Double> b0 = before.buckets(latency);
        NavigableMap<Double, Double> b1 = after.buckets(latency);
        double count = after.sum(latency + "_count") - before.sum(latency + "_count");
        double sum = after.sum(latency + "_sum") - before.sum(latency + "_sum");
        double gc = after.sum("jvm_gc_pause_seconds_sum") - before.sum("jvm_gc_pause_seconds_sum");
        return new JarRun(
                s.messages(),
                (long) s.messages() * s.spans(),
                bytes,
                (t1 - t0) / 1e9,
                PrometheusText.quantile(b0, b1, 0.5) * 1e3,
                PrometheusText.quantile(b0, b1, 0.99) * 1e3,
                count > 0 ? sum / count * 1e3 : Double.NaN,
                (cpu1 - cpu0) / 1e9,
                broker0.seen() && broker1.seen() ? broker1.secondsSince(broker0) : Double.NaN,
                gc);
    }

    /**
     * Waits until the jar counts {@code target} messages acknowledged: its endpoint polled every
     * {@value #SLOW_POLL_MILLIS} ms while more than {@code window} remain, then every {@value #POLL_MILLIS} ms, so
     * that the clock stops within that of the last acknowledgement while the polls cost the jar little (each is an
     * HTTP request through Tomcat and Spring Security).
     */
    private static void awaitAcknowledged(ServiceJar service, long target, long window, String what) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        for (long acked = service.acknowledged(); acked < target; acked = service.acknowledged()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("README's jar did not acknowledge " + what + " within 5 minutes"
                        + " (acknowledged " + acked + " of " + target + "); its log ended with:\n"
                        + service.logTail(40));
            }
            Thread.sleep(target - acked > window ? SLOW_POLL_MILLIS : POLL_MILLIS);
        }
    }

    private static void printPair(String tag, Pair p) {
        JarRun j = p.jar();
        BarePrototype.Result r = p.prototype().result();
        System.out.printf(
                Locale.ROOT,
                "%-14s README's jar: %d messages (%.1f MB) acknowledged in %.2f s: %,.0f spans/s; ack p50 %.1f ms,"
                        + " p99 %.0f ms, mean %.1f ms (its lens_ack_latency_seconds histogram); its JVM %.2f cores,"
                        + " GC %.2f s, broker %.2f cores | prototype %,.0f spans/s, its JVM %.2f cores, broker %.2f"
                        + " cores | jar / prototype %.2f (%s first)%n",
                tag,
                j.messages(),
                j.bytes() / 1e6,
                j.seconds(),
                j.spansPerSecond(),
                j.p50Millis(),
                j.p99Millis(),
                j.meanMillis(),
                j.cpuSeconds() / j.seconds(),
                j.gcSeconds(),
                j.brokerCpuSeconds() / j.seconds(),
                r.spansPerSecond(),
                p.prototype().cpuSeconds() / r.seconds(),
                p.prototype().brokerCpuSeconds() / r.seconds(),
                p.ratio(),
                p.prototypeFirst() ? "prototype" : "jar");
    }

    private static String printMedians(Case c, List<Pair> pairs) {
        double[] ratios = pairs.stream().mapToDouble(Pair::ratio).toArray();
        double[] jar = pairs.stream().mapToDouble(p -> p.jar().spansPerSecond()).toArray();
        double[] proto = pairs.stream()
                .mapToDouble(p -> p.prototype().result().spansPerSecond())
                .toArray();
        double ratio = TargetComparison.median(ratios);
        String line = String.format(
                Locale.ROOT,
                "%s: README's jar %,.0f spans/s (%,.0f-%,.0f), prototype %,.0f (%,.0f-%,.0f), jar / prototype %.2f"
                        + " (%.2f-%.2f; pairs %s) over %d pairs; target %.1f: %s; jar ack p99 %.0f ms, its JVM %.2f"
                        + " cores, broker %.2f (prototype's broker %.2f)",
                c.tag(),
                TargetComparison.median(jar),
                Arrays.stream(jar).min().orElse(0),
                Arrays.stream(jar).max().orElse(0),
                TargetComparison.median(proto),
                Arrays.stream(proto).min().orElse(0),
                Arrays.stream(proto).max().orElse(0),
                ratio,
                Arrays.stream(ratios).min().orElse(0),
                Arrays.stream(ratios).max().orElse(0),
                Arrays.stream(ratios)
                        .mapToObj(r -> String.format(Locale.ROOT, "%.2f", r))
                        .collect(Collectors.joining(", ")),
                pairs.size(),
                target(c),
                ratio >= target(c) ? "holds" : "short",
                TargetComparison.median(
                        pairs.stream().mapToDouble(p -> p.jar().p99Millis()).toArray()),
                TargetComparison.median(pairs.stream()
                        .mapToDouble(p -> p.jar().cpuSeconds() / p.jar().seconds())
                        .toArray()),
                TargetComparison.median(pairs.stream()
                        .mapToDouble(p -> p.jar().brokerCpuSeconds() / p.jar().seconds())
                        .toArray()),
                TargetComparison.median(pairs.stream()
                        .mapToDouble(p -> p.prototype().brokerCpuSeconds()
                                / p.prototype().result().seconds())
                        .toArray()));
        System.out.println("jar medians " + line);
        return line;
    }

    /**
     * Stops the jar with SIGTERM, then counts the spans in its committed files (every one it was sent, once) and
     * weighs its spool and what else is left in its folder.
     */
    private static void stopAndCheck(ServiceJar service, long messages, int spansPerMessage) throws Exception {
        long t0 = System.nanoTime();
        int status = service.stop();
        double stopSeconds = (System.nanoTime() - t0) / 1e9;
        Path folder = service.archiveFolder();
        ArchiveFiles files = ArchiveFiles.under(folder);
        long expected = messages * spansPerMessage;
        long rows;
        long distinct;
        try (java.sql.Connection db = DriverManager.getConnection("jdbc:duckdb:");
                var st = db.createStatement();
                ResultSet rs =
                        st.executeQuery("SELECT count(*), count(DISTINCT (trace_id, span_id)) FROM read_parquet('"
                                + folder.toString().replace("'", "''") + "/**/part-*.parquet')")) {
            rs.next();
            rows = rs.getLong(1);
            distinct = rs.getLong(2);
        }
        long spool = folderBytes(folder.resolve(".spool"));
        List<String> errors = service.logLines(" ERROR ");
        System.out.printf(
                Locale.ROOT,
                "jar stop: SIGTERM, exit status %d after %.1f s; %,d spans sent (warm-up included), %,d rows in %d"
                        + " committed files (%.1f MB, median %.1f MB, at most %d per run), %,d distinct; spool left"
                        + " %,d bytes; %d ERROR lines in its log%n",
                status,
                stopSeconds,
                expected,
                rows,
                files.count(),
                files.bytes() / 1e6,
                files.medianBytes() / 1e6,
                files.perRun().values().stream()
                        .mapToInt(Integer::intValue)
                        .max()
                        .orElse(0),
                distinct,
                spool,
                errors.size());
        if (rows != expected || distinct != expected) {
            throw new IllegalStateException("README's jar committed " + rows + " rows (" + distinct
                    + " distinct) of the " + expected + " spans it was sent");
        }
        if (!errors.isEmpty()) {
            System.out.println("jar log errors:\n" + String.join("\n", errors.subList(0, Math.min(10, errors.size()))));
        }
    }

    private static long folderBytes(Path folder) throws Exception {
        if (!Files.exists(folder)) {
            return 0;
        }
        try (Stream<Path> s = Files.walk(folder)) {
            return s.filter(Files::isRegularFile)
                    .mapToLong(p -> p.toFile().length())
                    .sum();
        }
    }

    /** A scrape of its Prometheus endpoint every 15 s, as Prometheus would, for the whole invocation. */
    private static ScheduledExecutorService scrapeEvery15s(ServiceJar service) {
        ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "lens-bench-prometheus");
            t.setDaemon(true);
            return t;
        });
        var unused = scheduler.scheduleAtFixedRate(
                () -> {
                    try {
                        service.prometheus();
                    } catch (Exception e) {
                        @Nullable String m = e.getMessage();
                        System.out.println("jar prometheus scrape failed: " + (m == null ? e : m));
                    }
                },
                15,
                15,
                TimeUnit.SECONDS);
        return scheduler;
    }
}
