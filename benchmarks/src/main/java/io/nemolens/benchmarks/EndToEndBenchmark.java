package io.nemolens.benchmarks;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.micrometer.core.instrument.MeterRegistry;
import io.nemolens.app.LensConsumerApplication;
import io.nemolens.archive.ArchiveStatus;
import io.nemolens.archive.DirectWriter;
import io.nemolens.archive.ParquetArchive;
import io.nemolens.archive.autoconfigure.LensArchiveProperties;
import io.nemolens.generator.CollectorJsonWriter;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.handlers.Encoding;
import io.nemolens.handlers.Signal;
import io.nemolens.topology.LensTopology;
import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The end-to-end bench: fills a queue on the local broker with N NeMo Lens trace messages (1024 spans
 * each) from several training runs, interleaved (message {@code i} belongs to run {@code i % runs}, run id
 * {@code bench-run-07}), runs the consumer with the Parquet archive on until every message is acknowledged
 * and every row is in a committed file, and prints spans/s and MB/s; the acknowledgement rate and the
 * p50/p99 time from delivery to acknowledgement; the files written, their median size and the files per
 * run; the CPU by thread. Right after, it writes the same rows with the archive's Parquet writing alone
 * ({@link DirectWriter}: one thread, no broker, no spool) and prints that rate and the ratio. It does so
 * {@code --passes} times (2), each measured run followed by its raw pass, since the machine's speed moves
 * within minutes, and then prints the faster end to end over the faster raw. Protobuf
 * first, then OTLP/JSON. Run it with {@code -Xmx512m -XX:+UseParallelGC} (see BENCHMARKS.md).
 *
 * <p>Before the measured runs the consumer is warmed up in rounds of {@code --warmup N} messages (100),
 * not measured, each ending with every file committed (as a running consumer commits files every few
 * minutes), at least three, until two rounds in a row in which the JIT compiler worked less than 5 % of
 * the round's time (at most {@code --warmup-rounds N}, 30): a consumer runs for days, so the steady state
 * is what counts. Every measured run starts with no open file. Its time ends when the queue is drained
 * and the archive, asked to commit what is open at the end of the stream
 * ({@link ParquetArchive#commitNow()}), has every row in a committed file: the final commit is included.
 *
 * <p>Options: {@code --messages N} (300), {@code --runs N} (16), {@code --warmup N},
 * {@code --warmup-rounds N}, {@code --spans N} (1024), {@code --prefetch N} (20; the Maven profile passes
 * the consumer's default, 4), {@code --concurrency N} (2), {@code --passes N} (2),
 * {@code --encodings protobuf,json}, {@code --amqp-uri URI} (amqp://guest:guest@127.0.0.1:5672).
 */
public final class EndToEndBenchmark {

    private static final long TIMEOUT_NANOS = 300_000_000_000L;

    private EndToEndBenchmark() {}

    /** What one invocation measures. */
    private record Settings(
            int messages,
            int runs,
            int warmup,
            int warmupRounds,
            int spans,
            int prefetch,
            int concurrency,
            int passes,
            String amqpUri) {}

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = options(args);
        Settings settings = new Settings(
                Integer.parseInt(opts.getOrDefault("messages", "300")),
                Integer.parseInt(opts.getOrDefault("runs", "16")),
                Integer.parseInt(opts.getOrDefault("warmup", "100")),
                Integer.parseInt(opts.getOrDefault("warmup-rounds", "30")),
                Integer.parseInt(opts.getOrDefault("spans", "1024")),
                Integer.parseInt(opts.getOrDefault("prefetch", "20")),
                Integer.parseInt(opts.getOrDefault("concurrency", "2")),
                Integer.parseInt(opts.getOrDefault("passes", "2")),
                opts.getOrDefault("amqp-uri", "amqp://guest:guest@127.0.0.1:5672/%2F"));
        if (settings.runs() < 1 || settings.messages() < 1 || settings.passes() < 1) {
            throw new IllegalArgumentException("--messages, --runs and --passes must be at least 1");
        }
        Runtime rt = Runtime.getRuntime();
        System.out.printf(
                Locale.ROOT,
                "end-to-end bench: %d messages x %d spans from %d interleaved runs (message i from run i %% %d),"
                        + " prefetch %d, concurrency %d, %d cores, max heap %d MiB, %s%n",
                settings.messages(),
                settings.spans(),
                settings.runs(),
                settings.runs(),
                settings.prefetch(),
                settings.concurrency(),
                rt.availableProcessors(),
                rt.maxMemory() >> 20,
                System.getProperty("java.version"));
        for (String encoding : opts.getOrDefault("encodings", "protobuf,json").split(",", -1)) {
            Encoding enc = Encoding.valueOf(encoding.trim().toUpperCase(Locale.ROOT));
            run(enc, settings);
        }
    }

    /** Issue 10's target for end to end / raw: protobuf at least 0.9, OTLP/JSON at least 0.7. */
    private static double target(Encoding encoding) {
        return encoding == Encoding.JSON ? 0.7 : 0.9;
    }

    /** The run id of message {@code i}: {@code bench-run-07} for run 7. */
    static String runId(int runs, int i) {
        return String.format(Locale.ROOT, "bench-run-%02d", i % runs);
    }

    private static byte[] body(Encoding encoding, Settings settings, int i) {
        int runs = settings.runs();
        var request = NemoLensRequests.spans(settings.spans(), runId(runs, i), (i / runs) % 8, i);
        return encoding == Encoding.JSON ? CollectorJsonWriter.write(request) : request.toByteArray();
    }

    private static void run(Encoding encoding, Settings settings) throws Exception {
        String id = "lens-bench." + UUID.randomUUID().toString().substring(0, 8);
        LensTopology topology = LensTopology.builder()
                .exchange(id + ".raw")
                .deadLetterExchange(id + ".dead")
                .queue(id + "-processing")
                .poisonQueue(id + "-poison")
                .parkingLotQueue(id + "-poison.parking-lot")
                .build();
        Path archiveDir = Files.createTempDirectory("lens-bench-archive");
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(settings.amqpUri());
        try (Connection connection = factory.newConnection("lens-bench");
                Channel ch = connection.createChannel()) {
            ch.exchangeDeclare(topology.exchangeName(), "topic", true);
            ch.exchangeDeclare(topology.deadLetterExchangeName(), "direct", true);
            ch.queueDeclare(topology.poisonQueueName(), true, false, false, topology.poisonQueueArguments());
            ch.queueDeclare(topology.parkingLotQueueName(), true, false, false, topology.parkingLotQueueArguments());
            ch.queueDeclare(topology.queueName(), true, false, false, topology.processingQueueArguments());
            ch.queueBind(topology.queueName(), topology.exchangeName(), "#");
            ch.confirmSelect();

            Map<String, Object> props = new LinkedHashMap<>();
            props.put("spring.rabbitmq.host", factory.getHost());
            props.put("spring.rabbitmq.port", factory.getPort());
            props.put("spring.rabbitmq.username", factory.getUsername());
            props.put("spring.rabbitmq.password", factory.getPassword());
            props.put("spring.rabbitmq.virtual-host", factory.getVirtualHost());
            props.put("lens.topology.exchange", topology.exchangeName());
            props.put("lens.topology.dead-letter-exchange", topology.deadLetterExchangeName());
            props.put("lens.topology.queue", topology.queueName());
            props.put("lens.topology.poison-queue", topology.poisonQueueName());
            props.put("lens.topology.parking-lot-queue", topology.parkingLotQueueName());
            props.put("lens.consumer.auto-startup", "false");
            props.put("lens.consumer.prefetch", settings.prefetch());
            // the bench's messages (1024 spans: a few hundred KB even as OTLP/JSON) are far below the 16MB
            // default; with this limit the measured prefetch fits the default lens.consumer.max-in-flight-bytes
            // (128MB) up to 32 per thread at concurrency 2
            props.put("lens.consumer.max-message-size", "2MB");
            props.put("lens.consumer.concurrency", settings.concurrency());
            props.put("lens.archive.path", archiveDir.toString());
            props.put("spring.main.banner-mode", "off");
            props.put("logging.level.root", "WARN");
            try (ConfigurableApplicationContext app = new SpringApplicationBuilder(LensConsumerApplication.class)
                    .web(WebApplicationType.NONE)
                    .properties(props)
                    .initializers(c ->
                            c.getBeanFactory().registerSingleton("benchAckLatencyHistogram", AckLatency.histogram()))
                    .run()) {
                MeterRegistry meters = app.getBean(MeterRegistry.class);
                SimpleMessageListenerContainer container = app.getBean(SimpleMessageListenerContainer.class);
                ParquetArchive archive = app.getBean(ParquetArchive.class);
                LensArchiveProperties archiveProperties = app.getBean(LensArchiveProperties.class);
                container.start();
                // every warm-up round ends with its files committed: the first measured run starts with none open
                int warmedUp = warmUp(ch, topology, encoding, settings, meters, archive);
                double bestEndToEnd = 0;
                double bestRaw = 0;
                List<String> passes = new ArrayList<>();
                for (int pass = 1; pass <= settings.passes(); pass++) {
                    container.stop();
                    // messages no pass and no warm-up round sent before: equal bodies would be duplicates, which
                    // the archive acknowledges without writing them again
                    int first = pass == 1 ? 0 : settings.messages() * (pass - 1) + warmedUp;
                    long bytes = fill(ch, topology, encoding, settings, first, first + settings.messages());

                    ArchiveFiles files0 = ArchiveFiles.under(archiveDir);
                    ArchiveStatus status0 = archive.status();
                    AckLatency.Snapshot latency0 = AckLatency.take(meters);
                    double acked0 = acked(meters);
                    double decode0 = timerSeconds(meters, "lens.decode.duration");
                    double handle0 = timerSeconds(meters, "lens.handle.duration");
                    long cpu0 = processCpuNanos();
                    long broker0 = BrokerCpu.nanos();
                    ThreadCpu threads0 = ThreadCpu.now();
                    long gc0 = gcMillis();
                    long t0 = System.nanoTime();
                    container.start();
                    while (acked(meters) - acked0 < settings.messages()) {
                        if (System.nanoTime() - t0 > TIMEOUT_NANOS) {
                            throw new IllegalStateException(
                                    "not drained in 5 minutes: " + (acked(meters) - acked0) + " acknowledged");
                        }
                        Thread.sleep(2);
                    }
                    long tAcked = System.nanoTime();
                    // the end of the stream: what is open is committed now, not when max-age would commit it
                    archive.commitNow();
                    awaitCommitted(archive, t0);
                    long tCommitted = System.nanoTime();

                    Measured m = new Measured(
                            settings.messages(),
                            (long) settings.messages() * settings.spans(),
                            bytes,
                            (tCommitted - t0) / 1e9,
                            (tAcked - t0) / 1e9,
                            ch.messageCount(topology.queueName()),
                            ch.messageCount(topology.poisonQueueName()));
                    double cpuSeconds = (processCpuNanos() - cpu0) / 1e9;
                    long broker1 = BrokerCpu.nanos();
                    ThreadCpu threads1 = ThreadCpu.now();
                    double gcSeconds = (gcMillis() - gc0) / 1e3;
                    AckLatency.Snapshot latency = AckLatency.take(meters).since(latency0);
                    ArchiveStatus status1 = archive.status();
                    ArchiveFiles written = ArchiveFiles.under(archiveDir).since(files0);
                    String tag = settings.passes() > 1 ? encoding.tag() + " #" + pass : encoding.tag();

                    System.out.printf(
                            Locale.ROOT,
                            "%-8s end to end: %d messages (%.1f MB) from %d runs drained, acknowledged and every row in a"
                                    + " committed file in %.2f s (final commit included): %,.0f spans/s, %.1f MB/s"
                                    + " (%d left, %d poisoned)%n",
                            tag,
                            m.messages(),
                            bytes / 1e6,
                            settings.runs(),
                            m.seconds(),
                            m.spansPerSecond(),
                            bytes / 1e6 / m.seconds(),
                            m.left(),
                            m.poisoned());
                    System.out.printf(
                            Locale.ROOT,
                            "%-8s acknowledged: all %d after %.2f s, %.1f messages/s (%,.0f spans/s); delivery to ack"
                                    + " p50 %.1f ms, p99 %.1f ms, mean %.1f ms (lens.ack.latency, %d timed); final commit"
                                    + " %.2f s after the last ack%n",
                            tag,
                            m.messages(),
                            m.ackSeconds(),
                            m.messages() / m.ackSeconds(),
                            m.spans() / m.ackSeconds(),
                            latency.percentileMillis(0.5),
                            latency.percentileMillis(0.99),
                            latency.meanMillis(),
                            latency.count(),
                            m.seconds() - m.ackSeconds());
                    Map<String, Integer> perRun = written.perRun();
                    System.out.printf(
                            Locale.ROOT,
                            "%-8s files: %d committed in the measured run (%.1f MB, %.0f bytes per span, zstd level %d),"
                                    + " median %.2f MB; rows committed %,d of %,d; %d files lost, %d row groups cut early%n",
                            tag,
                            written.count(),
                            written.bytes() / 1e6,
                            (double) written.bytes() / m.spans(),
                            archiveProperties.zstdLevel(),
                            written.medianBytes() / 1e6,
                            status1.committedRows() - status0.committedRows(),
                            m.spans(),
                            status1.lostFiles() - status0.lostFiles(),
                            status1.earlyRowGroups() - status0.earlyRowGroups());
                    if (status1.committedRows() - status0.committedRows() != m.spans()) {
                        // a rate is only a rate of rows written: duplicates or losses make it meaningless
                        throw new IllegalStateException("rows committed in the measured run: "
                                + (status1.committedRows() - status0.committedRows()) + ", sent: " + m.spans());
                    }
                    System.out.printf(
                            Locale.ROOT,
                            "%-8s runs: %d in the stream, %d with files; files per run max %d, min %d (issue 10: at most 2;"
                                    + " max-age %d s)%n",
                            tag,
                            settings.runs(),
                            perRun.size(),
                            perRun.values().stream()
                                    .mapToInt(Integer::intValue)
                                    .max()
                                    .orElse(0),
                            perRun.values().stream()
                                    .mapToInt(Integer::intValue)
                                    .min()
                                    .orElse(0),
                            archiveProperties.maxAge().toSeconds());
                    System.out.printf(
                            Locale.ROOT,
                            "%-8s consumer JVM used %.1f of %d cores meanwhile (%.1f CPU-s), GC %.1f s, after %d warm-up"
                                    + " messages%n",
                            tag,
                            cpuSeconds / m.seconds(),
                            Runtime.getRuntime().availableProcessors(),
                            cpuSeconds,
                            gcSeconds,
                            warmedUp);
                    if (broker0 >= 0 && broker1 >= 0) {
                        System.out.printf(
                                Locale.ROOT,
                                "%-8s broker (beam.smp on this machine) used %.1f of %d cores meanwhile (%.1f CPU-s)%n",
                                tag,
                                (broker1 - broker0) / 1e9 / m.seconds(),
                                Runtime.getRuntime().availableProcessors(),
                                (broker1 - broker0) / 1e9);
                    }
                    Map<String, Double> byName = threads1.byName(threads0);
                    double attributed = byName.values().stream()
                            .mapToDouble(Double::doubleValue)
                            .sum();
                    System.out.printf(
                            Locale.ROOT,
                            "%-8s CPU-s by thread:%s not attributed %.1f%n",
                            tag,
                            ThreadCpu.largestFirst(byName, 0.05),
                            cpuSeconds - attributed);
                    System.out.printf(
                            Locale.ROOT,
                            "%-8s CPU-s by role:%s not attributed %.1f; listener threads' wall time: decoding %.1f s,"
                                    + " handlers (the archive: spool append, rows into open files) %.1f s%n",
                            tag,
                            ThreadCpu.inOrder(threads1.byRole(threads0)),
                            cpuSeconds - attributed,
                            timerSeconds(meters, "lens.decode.duration") - decode0,
                            timerSeconds(meters, "lens.handle.duration") - handle0);
                    if (threads1.knowsWaits()) {
                        Map<String, Double> waits = threads1.waitsByRole(threads0);
                        double listenerCpu = threads1.byRole(threads0).getOrDefault("listener threads", 0.0);
                        double listenerWait = waits.getOrDefault("listener threads", 0.0);
                        System.out.printf(
                                Locale.ROOT,
                                "%-8s waiting for a core (runnable, another thread or process on it): %.1f s in all threads;"
                                        + " the %d listener threads over %.1f s each: on a core %.1f s, waiting for one %.1f s,"
                                        + " neither (blocked: locks, I/O, broker; or idle) %.1f s%n",
                                tag,
                                waits.values().stream()
                                        .mapToDouble(Double::doubleValue)
                                        .sum(),
                                settings.concurrency(),
                                m.seconds(),
                                listenerCpu,
                                listenerWait,
                                settings.concurrency() * m.seconds() - listenerCpu - listenerWait);
                    }
                    // the raw reference right after each end-to-end run: the machine's speed moves within minutes
                    RawReference raw =
                            RawReference.measure(i -> body(encoding, settings, i), first, settings.messages());
                    double ratio = m.spansPerSecond() / raw.rowsPerSecond();
                    System.out.printf(
                            Locale.ROOT,
                            "%-8s raw Parquet, same rows (%d runs), DirectWriter on 1 thread, no broker, no spool: %,.0f"
                                    + " rows/s into %d files; end to end / raw = %.2f (issue 10: at least %.1f); decoding"
                                    + " alone (not in the raw rate) %.2f us per span%n",
                            tag,
                            settings.runs(),
                            raw.rowsPerSecond(),
                            raw.files(),
                            ratio,
                            target(encoding),
                            raw.decodeNanosPerRow() / 1e3);
                    bestEndToEnd = Math.max(bestEndToEnd, m.spansPerSecond());
                    bestRaw = Math.max(bestRaw, raw.rowsPerSecond());
                    passes.add(String.format(Locale.ROOT, "%.2f", ratio));
                }
                System.out.printf(
                        Locale.ROOT,
                        "%-8s end to end / raw over %d passes (each end-to-end run followed by a raw one): the faster"
                                + " end to end %,.0f spans/s / the faster raw %,.0f rows/s = %.2f (issue 10: at least"
                                + " %.1f); pass by pass %s%n",
                        encoding.tag(),
                        settings.passes(),
                        bestEndToEnd,
                        bestRaw,
                        bestEndToEnd / bestRaw,
                        target(encoding),
                        String.join(", ", passes));
            }
        } finally {
            try (Connection connection = factory.newConnection("lens-bench-cleanup");
                    Channel ch = connection.createChannel()) {
                ch.queueDelete(topology.queueName());
                ch.queueDelete(topology.poisonQueueName());
                ch.queueDelete(topology.parkingLotQueueName());
                ch.queueDelete(topology.poisonIndexName());
                ch.exchangeDelete(topology.exchangeName());
                ch.exchangeDelete(topology.deadLetterExchangeName());
            }
            ArchiveFiles.delete(archiveDir);
        }
    }

    /**
     * The measured run.
     *
     * @param seconds from the listener's start until every row is in a committed file
     * @param ackSeconds from the listener's start until every message is acknowledged
     */
    private record Measured(
            int messages, long spans, long bytes, double seconds, double ackSeconds, long left, long poisoned) {
        double spansPerSecond() {
            return spans / seconds;
        }
    }

    /** Waits until the archive has every row it took in a committed file, and nothing to write again. */
    private static void awaitCommitted(ParquetArchive archive, long since) throws InterruptedException {
        while (true) {
            ArchiveStatus s = archive.status();
            if (s.spoolEntries() == 0 && s.openFiles() == 0 && s.rewriting() == 0) {
                return;
            }
            if (System.nanoTime() - since > TIMEOUT_NANOS) {
                throw new IllegalStateException("the archive did not commit everything in 5 minutes: " + s);
            }
            Thread.sleep(1);
        }
    }

    /**
     * Runs rounds of warm-up messages (seeds after the measured ones, the same runs) through the running
     * consumer, at least three, until the JIT compiler works less than 5 % of two rounds in a row, or the
     * rounds run out. Returns how many messages it took.
     */
    private static int warmUp(
            Channel ch,
            LensTopology topology,
            Encoding encoding,
            Settings settings,
            MeterRegistry meters,
            ParquetArchive archive)
            throws Exception {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        int perRound = settings.warmup();
        int sent = 0;
        int quietRounds = 0;
        for (int round = 0; round < settings.warmupRounds(); round++) {
            long jit0 = jit.getTotalCompilationTime();
            long t0 = System.nanoTime();
            int from = settings.messages() + sent;
            fill(ch, topology, encoding, settings, from, from + perRound);
            sent += perRound;
            while (acked(meters) < sent) {
                if (System.nanoTime() - t0 > TIMEOUT_NANOS) {
                    throw new IllegalStateException("warm-up round " + (round + 1) + " not drained in 5 minutes");
                }
                Thread.sleep(5);
            }
            // a running consumer commits files every few minutes: the commit's code is part of the steady state
            archive.commitNow();
            awaitCommitted(archive, t0);
            long roundMillis = (System.nanoTime() - t0) / 1_000_000;
            long jitMillis = jit.getTotalCompilationTime() - jit0;
            System.out.printf(
                    Locale.ROOT,
                    "%-8s warm-up round %d: %d messages in %d ms, JIT compiling %d ms%n",
                    encoding.tag(),
                    round + 1,
                    perRound,
                    roundMillis,
                    jitMillis);
            // steady: two rounds in a row in which the JIT compiler worked less than 5 % of the round's time
            quietRounds = jitMillis < roundMillis / 20 ? quietRounds + 1 : 0;
            if (round >= 2 && quietRounds >= 2) {
                break;
            }
        }
        return sent;
    }

    /** Publishes messages {@code from} to {@code to} (exclusive), persistent and confirmed; returns their bytes. */
    private static long fill(Channel ch, LensTopology topology, Encoding encoding, Settings settings, int from, int to)
            throws Exception {
        AMQP.BasicProperties persistent =
                new AMQP.BasicProperties.Builder().deliveryMode(2).build();
        long bytes = 0;
        for (int i = from; i < to; i++) {
            byte[] body = body(encoding, settings, i);
            bytes += body.length;
            ch.basicPublish(topology.exchangeName(), Signal.SPANS.routingKey(), true, persistent, body);
            if (i % 50 == 49) {
                ch.waitForConfirmsOrDie(60_000);
            }
        }
        ch.waitForConfirmsOrDie(60_000);
        return bytes;
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    private static long gcMillis() {
        long total = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            total += Math.max(0, gc.getCollectionTime());
        }
        return total;
    }

    private static double acked(MeterRegistry meters) {
        return meters.find("lens.messages").tag("outcome", "acked").counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
    }

    /** The total time of every timer of this name (all signals), in seconds. */
    private static double timerSeconds(MeterRegistry meters, String name) {
        return meters.find(name).timers().stream()
                .mapToDouble(t -> t.totalTime(TimeUnit.SECONDS))
                .sum();
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> opts = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException(
                        "usage: EndToEndBenchmark [--messages N] [--runs N] [--warmup N] [--warmup-rounds N]"
                                + " [--spans N] [--prefetch N] [--concurrency N] [--passes N] [--encodings protobuf,json]"
                                + " [--amqp-uri URI]");
            }
            opts.put(args[i].substring(2), args[++i]);
        }
        return opts;
    }
}
