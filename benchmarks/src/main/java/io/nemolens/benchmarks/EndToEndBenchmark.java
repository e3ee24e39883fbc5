package io.nemolens.benchmarks;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.micrometer.core.instrument.MeterRegistry;
import io.nemolens.archive.ArchiveOptions;
import io.nemolens.archive.DirectWriter;
import io.nemolens.consumer.LensConsumerApplication;
import io.nemolens.decode.DecodedMessage;
import io.nemolens.decode.MessageIds;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.generator.CollectorJsonWriter;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.handlers.Encoding;
import io.nemolens.handlers.MessageInfo;
import io.nemolens.handlers.ReceivedMessage;
import io.nemolens.handlers.Signal;
import io.nemolens.topology.LensTopology;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The end-to-end bench: fills a queue on the local broker with N NeMo Lens trace messages (1024 spans
 * each), runs the consumer with the Parquet archive on (acknowledging after commit) until every message
 * is acknowledged, and prints spans/s and MB/s; then, in the same run, writes the same rows straight to
 * Parquet with one thread and no broker, and prints that rate and the ratio. Protobuf first, then
 * OTLP/JSON. Run it with {@code -Xmx512m} (see BENCHMARKS.md).
 *
 * <p>Before the measured run the consumer is warmed up in rounds of {@code --warmup N} messages (100),
 * not measured, at least three, until a round in which the JIT compiler worked less than a tenth of
 * the round's time (at most {@code --warmup-rounds N}, 10): a consumer runs for days, so the steady state is what counts,
 * and the compiler threads' CPU of the measured run is printed with the rest.
 *
 * <p>Options: {@code --messages N} (300), {@code --warmup N}, {@code --warmup-rounds N}, {@code --spans N} (1024), {@code --prefetch N} (20, the consumer's default),
 * {@code --concurrency N} (2), {@code --encodings protobuf,json}, {@code --amqp-uri URI}
 * (amqp://guest:guest@127.0.0.1:5672).
 */
public final class EndToEndBenchmark {

    private EndToEndBenchmark() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = options(args);
        int messages = Integer.parseInt(opts.getOrDefault("messages", "300"));
        int warmup = Integer.parseInt(opts.getOrDefault("warmup", "100"));
        int warmupRounds = Integer.parseInt(opts.getOrDefault("warmup-rounds", "10"));
        int spans = Integer.parseInt(opts.getOrDefault("spans", "1024"));
        int prefetch = Integer.parseInt(opts.getOrDefault("prefetch", "20"));
        int concurrency = Integer.parseInt(opts.getOrDefault("concurrency", "2"));
        String uri = opts.getOrDefault("amqp-uri", "amqp://guest:guest@127.0.0.1:5672/%2F");
        Runtime rt = Runtime.getRuntime();
        System.out.printf(
                Locale.ROOT,
                "end-to-end bench: %d messages x %d spans, prefetch %d, concurrency %d, %d cores, max heap %d MiB, %s%n",
                messages,
                spans,
                prefetch,
                concurrency,
                rt.availableProcessors(),
                rt.maxMemory() >> 20,
                System.getProperty("java.version"));
        for (String encoding : opts.getOrDefault("encodings", "protobuf,json").split(",")) {
            Encoding enc = Encoding.valueOf(encoding.trim().toUpperCase(Locale.ROOT));
            run(enc, messages, warmup, warmupRounds, spans, prefetch, concurrency, uri);
        }
    }

    private static byte[] body(Encoding encoding, int spans, int i) {
        var request = NemoLensRequests.spans(spans, "bench-run", i % 8, i);
        return encoding == Encoding.JSON ? CollectorJsonWriter.write(request) : request.toByteArray();
    }

    private static void run(
            Encoding encoding,
            int messages,
            int warmup,
            int warmupRounds,
            int spans,
            int prefetch,
            int concurrency,
            String uri)
            throws Exception {
        String id = "lens-bench." + UUID.randomUUID().toString().substring(0, 8);
        LensTopology topology = LensTopology.builder()
                .exchange(id + ".raw")
                .queue(id + "-processing")
                .poisonQueue(id + "-poison")
                .parkingLotQueue(id + "-poison.parking-lot")
                .build();
        Path archive = Files.createTempDirectory("lens-bench-archive");
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(uri);
        long bytes = 0;
        try (Connection connection = factory.newConnection("lens-bench");
                Channel ch = connection.createChannel()) {
            ch.exchangeDeclare(topology.exchangeName(), "topic", true);
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
            props.put("lens.topology.queue", topology.queueName());
            props.put("lens.topology.poison-queue", topology.poisonQueueName());
            props.put("lens.topology.parking-lot-queue", topology.parkingLotQueueName());
            props.put("lens.consumer.auto-startup", "false");
            props.put("lens.consumer.prefetch", prefetch);
            props.put("lens.consumer.concurrency", concurrency);
            props.put("lens.archive.path", archive.toString());
            props.put("spring.main.banner-mode", "off");
            props.put("logging.level.root", "WARN");
            try (ConfigurableApplicationContext app = new SpringApplicationBuilder(LensConsumerApplication.class)
                    .web(WebApplicationType.NONE)
                    .properties(props)
                    .run()) {
                MeterRegistry meters = app.getBean(MeterRegistry.class);
                SimpleMessageListenerContainer container = app.getBean(SimpleMessageListenerContainer.class);
                container.start();
                int warmedUp = warmUp(ch, topology, encoding, spans, messages, warmup, warmupRounds, meters);
                container.stop();
                bytes = fill(ch, topology, encoding, spans, 0, messages);
                long archived0 = bytesUnder(archive);
                double before = acked(meters);
                long cpu0 = processCpuNanos();
                Map<String, Long> threads0 = threadCpu();
                long gc0 = gcMillis();
                long t0 = System.nanoTime();
                container.start();
                while (acked(meters) - before < messages) {
                    if (System.nanoTime() - t0 > 300_000_000_000L) {
                        throw new IllegalStateException(
                                "not drained in 5 minutes: " + (acked(meters) - before) + " acknowledged");
                    }
                    Thread.sleep(5);
                }
                double seconds = (System.nanoTime() - t0) / 1e9;
                double cpuSeconds = (processCpuNanos() - cpu0) / 1e9;
                Map<String, Long> threads1 = threadCpu();
                double gcSeconds = (gcMillis() - gc0) / 1e3;
                long left = ch.messageCount(topology.queueName());
                long poisoned = ch.messageCount(topology.poisonQueueName());
                double spansPerSecond = (double) messages * spans / seconds;
                long archived = bytesUnder(archive) - archived0;
                System.out.printf(
                        Locale.ROOT,
                        "%-8s end to end: %d messages (%.1f MB) drained and acknowledged in %.2f s: %,.0f spans/s, %.1f MB/s"
                                + " (archive on, ack after commit; %d left, %d poisoned)%n",
                        encoding.tag(),
                        messages,
                        bytes / 1e6,
                        seconds,
                        spansPerSecond,
                        bytes / 1e6 / seconds,
                        left,
                        poisoned);
                System.out.printf(
                        Locale.ROOT,
                        "%-8s consumer JVM used %.1f of %d cores meanwhile (%.1f CPU-s), GC %.1f s, after %d warm-up messages%n",
                        encoding.tag(),
                        cpuSeconds / seconds,
                        Runtime.getRuntime().availableProcessors(),
                        cpuSeconds,
                        gcSeconds,
                        warmedUp);
                Map<String, Double> byGroup = new java.util.TreeMap<>();
                double javaThreads = 0;
                for (Map.Entry<String, Long> e : threads1.entrySet()) {
                    double used = (e.getValue() - threads0.getOrDefault(e.getKey(), 0L)) / 1e9;
                    String group = e.getKey().replaceAll("#\\d+$", "").replaceAll("\\d+", "N");
                    byGroup.merge(group, used, Double::sum);
                    javaThreads += used;
                }
                StringBuilder groups = new StringBuilder();
                byGroup.entrySet().stream()
                        .filter(e -> e.getValue() >= 0.05)
                        .sorted((a, b) -> Double.compare(b.getValue(), a.getValue()))
                        .forEach(e -> groups.append(String.format(Locale.ROOT, " %s %.1f,", e.getKey(), e.getValue())));
                System.out.printf(
                        Locale.ROOT,
                        "%-8s CPU-s by thread:%s not attributed %.1f%n",
                        encoding.tag(),
                        groups,
                        cpuSeconds - javaThreads);
                System.out.printf(
                        Locale.ROOT,
                        "%-8s archive: %.1f MB of Parquet for these spans, %.0f bytes per span (zstd level %d)%n",
                        encoding.tag(),
                        archived / 1e6,
                        (double) archived / ((long) messages * spans),
                        app.getBean(io.nemolens.archive.autoconfigure.LensArchiveProperties.class)
                                .zstdLevel());
                double raw = rawParquetRate(encoding, messages, spans);
                System.out.printf(
                        Locale.ROOT,
                        "%-8s raw Parquet, same rows, 1 writer thread, no broker: %,.0f rows/s; end to end / raw = %.2f%n",
                        encoding.tag(),
                        raw,
                        spansPerSecond / raw);
            }
        } finally {
            try (Connection connection = factory.newConnection("lens-bench-cleanup");
                    Channel ch = connection.createChannel()) {
                ch.queueDelete(topology.queueName());
                ch.queueDelete(topology.poisonQueueName());
                ch.queueDelete(topology.parkingLotQueueName());
                ch.exchangeDelete(topology.exchangeName());
            }
            deleteRecursively(archive);
        }
    }

    /**
     * Runs rounds of warm-up messages (seeds after the measured ones) through the running consumer, at
     * least three, until the JIT compiler works less than a tenth of a round's time, or the rounds run out. Returns how many
     * messages it took.
     */
    private static int warmUp(
            Channel ch,
            LensTopology topology,
            Encoding encoding,
            int spans,
            int measured,
            int perRound,
            int rounds,
            MeterRegistry meters)
            throws Exception {
        java.lang.management.CompilationMXBean jit = java.lang.management.ManagementFactory.getCompilationMXBean();
        int sent = 0;
        for (int round = 0; round < rounds; round++) {
            long jit0 = jit.getTotalCompilationTime();
            long t0 = System.nanoTime();
            fill(ch, topology, encoding, spans, measured + sent, measured + sent + perRound);
            sent += perRound;
            while (acked(meters) < sent) {
                Thread.sleep(5);
            }
            long roundMillis = (System.nanoTime() - t0) / 1_000_000;
            System.out.printf(
                    Locale.ROOT,
                    "%-8s warm-up round %d: %d messages in %d ms, JIT compiling %d ms%n",
                    encoding.tag(),
                    round + 1,
                    perRound,
                    roundMillis,
                    jit.getTotalCompilationTime() - jit0);
            if (round >= 2 && jit.getTotalCompilationTime() - jit0 < roundMillis / 10) {
                break;
            }
        }
        return sent;
    }

    private static long fill(Channel ch, LensTopology topology, Encoding encoding, int spans, int from, int to)
            throws Exception {
        AMQP.BasicProperties persistent =
                new AMQP.BasicProperties.Builder().deliveryMode(2).build();
        long bytes = 0;
        for (int i = from; i < to; i++) {
            byte[] body = body(encoding, spans, i);
            bytes += body.length;
            ch.basicPublish(topology.exchangeName(), Signal.SPANS.routingKey(), true, persistent, body);
            if (i % 50 == 49) {
                ch.waitForConfirmsOrDie(60_000);
            }
        }
        ch.waitForConfirmsOrDie(60_000);
        return bytes;
    }

    /**
     * Writes the same rows with the archive directly, timing only the writing (each message is decoded
     * first, untimed). Everything goes into one file committed at the end, so that all of the Parquet
     * work (encoding, compression, close, fsync) happens on this one thread and is timed.
     */
    private static double rawParquetRate(Encoding encoding, int messages, int spans) throws IOException {
        Path dir = Files.createTempDirectory("lens-bench-raw");
        OtlpDecoder decoder = new OtlpDecoder();
        long writeNanos = 0;
        long rows = 0;
        try (DirectWriter writer = new DirectWriter(ArchiveOptions.defaults(dir))) {
            for (int i = 0; i < messages; i++) {
                byte[] body = body(encoding, spans, i);
                DecodedMessage decoded = decoder.decode(Signal.SPANS, body, null);
                MessageInfo info = new MessageInfo(
                        MessageIds.of(body),
                        Signal.SPANS,
                        decoded.encoding(),
                        "",
                        "otlp_spans",
                        body.length,
                        false,
                        decoded.request());
                ReceivedMessage message = new ReceivedMessage(
                        info,
                        body,
                        java.time.Instant.now(),
                        decoded.spans(),
                        decoded.metricPoints(),
                        decoded.logs(),
                        decoded.gpuSamples(),
                        decoded.nodeSamples());
                long t = System.nanoTime();
                writer.write(message);
                writeNanos += System.nanoTime() - t;
                rows += decoded.spans().size();
            }
            long t = System.nanoTime();
            writer.close();
            writeNanos += System.nanoTime() - t;
        } finally {
            deleteRecursively(dir);
        }
        return rows / (writeNanos / 1e9);
    }

    private static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean)
                        java.lang.management.ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /**
     * CPU time by thread, keyed {@code name#tid}: every thread of the JVM from {@code /proc/self/task}
     * (so the garbage collector's and the JIT compiler's threads too; names cut to 15 characters by
     * Linux), or the Java threads alone where there is no {@code /proc}.
     */
    private static Map<String, Long> threadCpu() {
        Map<String, Long> out = new LinkedHashMap<>();
        Path tasks = Path.of("/proc/self/task");
        if (Files.isDirectory(tasks)) {
            long nanosPerTick = 10_000_000L; // USER_HZ is 100 on Linux
            try (var dirs = Files.list(tasks)) {
                for (Path task : (Iterable<Path>) dirs::iterator) {
                    try {
                        String stat = Files.readString(task.resolve("stat"));
                        String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                        String[] fields =
                                stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                        long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime
                        out.put(name + "#" + task.getFileName(), ticks * nanosPerTick);
                    } catch (IOException | RuntimeException e) {
                        // the thread ended meanwhile
                    }
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            return out;
        }
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        for (java.lang.management.ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (info != null) {
                long cpu = mx.getThreadCpuTime(info.getThreadId());
                if (cpu > 0) {
                    out.merge(info.getThreadName() + "#" + info.getThreadId(), cpu, Long::sum);
                }
            }
        }
        return out;
    }

    private static long gcMillis() {
        long total = 0;
        for (java.lang.management.GarbageCollectorMXBean gc :
                java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
            total += Math.max(0, gc.getCollectionTime());
        }
        return total;
    }

    private static double acked(MeterRegistry meters) {
        return meters.find("lens.messages").tag("outcome", "acked").counters().stream()
                .mapToDouble(c -> c.count())
                .sum();
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> opts = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException(
                        "usage: EndToEndBenchmark [--messages N] [--warmup N] [--spans N] [--prefetch N] "
                                + "[--concurrency N] [--encodings protobuf,json] [--amqp-uri URI]");
            }
            opts.put(args[i].substring(2), args[++i]);
        }
        return opts;
    }

    /** The size of every file under {@code dir}. */
    private static long bytesUnder(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile)
                    .mapToLong(p -> p.toFile().length())
                    .sum();
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
