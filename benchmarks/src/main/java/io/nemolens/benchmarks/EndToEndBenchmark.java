package io.nemolens.benchmarks;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.micrometer.core.instrument.MeterRegistry;
import io.nemolens.archive.ArchiveStatus;
import io.nemolens.archive.ClaimsStatus;
import io.nemolens.archive.DirectWriter;
import io.nemolens.archive.ParquetArchive;
import io.nemolens.archive.StoreStatus;
import io.nemolens.archive.TableStatus;
import io.nemolens.archive.autoconfigure.LensArchiveProperties;
import io.nemolens.generator.CollectorJsonWriter;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.handlers.Encoding;
import io.nemolens.handlers.Signal;
import io.nemolens.topology.LensTopology;
import java.io.IOException;
import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;

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
 * is what counts. With the bare prototype (below), which runs in the same JVM on the same protobuf-java and
 * parquet-java code, the consumer and then the prototype warm up once more by the same rule after the
 * prototype's first warm-up, so neither side's first measured run pays for code the other's warm-up
 * recompiled. Every measured run starts with no open file. Its time ends when the queue is drained
 * and the archive, asked to commit what is open at the end of the stream
 * ({@link ParquetArchive#commitNow()}), has every row in a committed file: the final commit is included.
 *
 * <p>Options: {@code --messages N} (300), {@code --runs N} (16), {@code --warmup N},
 * {@code --warmup-rounds N}, {@code --spans N} (1024), {@code --prefetch N} (20; the Maven profile passes
 * the consumer's default, 4), {@code --concurrency N} (2), {@code --passes N} (2),
 * {@code --encodings protobuf,json}, {@code --amqp-uri URI} (amqp://guest:guest@127.0.0.1:5672),
 * {@code --targets local,s3,s3+claims} (local), {@code --claims-url JDBC-URL}
 * (jdbc:postgresql://127.0.0.1:5432/test), {@code --claims-user USER} (postgres), {@code --prototype true|false}
 * (true).
 *
 * <p><b>The bare prototype</b> (issue 20's yardstick, protobuf only; {@link BarePrototype}): on a quorum queue of
 * its own, filled with the same messages before each of its runs, warmed up by the same rule, and measured in
 * every pass, after the targets in odd passes and before them in even ones: spans/s from the start of consuming
 * until every message is acknowledged and both its files closed, the ratio project (the reference target) /
 * prototype, ack p50/p99, the heap after GC and its files ({@link PrototypeComparison}); at the end, the medians.
 * Every measured run, the project's too, starts after a full collection ({@link HeapAfterGc}).
 *
 * <p><b>Targets</b> (issue 19): {@code local} archives into the local folder; {@code s3} publishes every
 * committed file to an S3 store ({@link BenchStores}: s3proxy in this JVM, so its CPU comes out of the same
 * cores, where a real store is remote), and a file counts as committed once its upload returned;
 * {@code s3+claims} does too and claims every message id in a PostgreSQL table before acknowledging it. With
 * several targets, each has an application context of its own, kept open for the whole invocation, on a queue
 * and an archive folder of its own; they are warmed up in turn, and in every pass each is measured in turn on
 * the same messages (the order rotated from pass to pass), its listener alone running; after the pass come the
 * raw reference, each target's ratio to the local folder of the same pass, and at the end the medians over the
 * passes ({@link TargetComparison}).
 */
public final class EndToEndBenchmark {

    private static final long TIMEOUT_NANOS = 300_000_000_000L;

    /** How often a run (measured or warm-up) looks whether the store or the claim registry fails. */
    private static final long CHECK_NANOS = 100_000_000L;

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
            String amqpUri,
            List<Target> targets,
            String claimsUrl,
            String claimsUser,
            boolean prototype) {}

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
                opts.getOrDefault("amqp-uri", "amqp://guest:guest@127.0.0.1:5672/%2F"),
                Target.parse(opts.getOrDefault("targets", "local")),
                opts.getOrDefault("claims-url", "jdbc:postgresql://127.0.0.1:5432/test"),
                opts.getOrDefault("claims-user", "postgres"),
                Boolean.parseBoolean(opts.getOrDefault("prototype", "true")));
        if (settings.runs() < 1 || settings.messages() < 1 || settings.passes() < 1) {
            throw new IllegalArgumentException("--messages, --runs and --passes must be at least 1");
        }
        Runtime rt = Runtime.getRuntime();
        System.out.printf(
                Locale.ROOT,
                "end-to-end bench: %d messages x %d spans from %d interleaved runs (message i from run i %% %d),"
                        + " prefetch %d, concurrency %d, %d cores, max heap %d MiB, %s; targets %s%n",
                settings.messages(),
                settings.spans(),
                settings.runs(),
                settings.runs(),
                settings.prefetch(),
                settings.concurrency(),
                rt.availableProcessors(),
                rt.maxMemory() >> 20,
                System.getProperty("java.version"),
                settings.targets().stream().map(Target::label).collect(Collectors.joining(", ")));
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
        ConnectionFactory factory = new ConnectionFactory();
        factory.setUri(settings.amqpUri());
        try (BenchStores stores =
                        BenchStores.forTargets(settings.targets(), settings.claimsUrl(), settings.claimsUser());
                Connection connection = factory.newConnection("lens-bench");
                Channel ch = connection.createChannel()) {
            ch.confirmSelect();
            if (!stores.describe().isEmpty()) {
                System.out.printf(Locale.ROOT, "%-8s %s%n", encoding.tag(), stores.describe());
            }
            List<BenchConsumer> consumers = new ArrayList<>();
            try {
                for (Target target : settings.targets()) {
                    consumers.add(BenchConsumer.start(
                            target, settings.prefetch(), settings.concurrency(), factory, ch, stores));
                }
                if (settings.prototype() && encoding == Encoding.PROTOBUF) {
                    try (PrototypeBench prototype = PrototypeBench.declare(factory, ch)) {
                        measure(encoding, settings, ch, consumers, prototype);
                    }
                } else {
                    if (settings.prototype()) {
                        System.out.printf(
                                Locale.ROOT,
                                "%-8s prototype: decodes protobuf only (issue 20), not run%n",
                                encoding.tag());
                    }
                    measure(encoding, settings, ch, consumers, null);
                }
            } finally {
                closeAll(consumers);
            }
        }
    }

    /**
     * Warms every consumer up in turn (and the bare prototype, when given), then runs the passes: in each, every
     * target's measured run (the order rotated from pass to pass, the same messages for each), the prototype's
     * before them in even passes and after them in odd ones, then the raw pass of the same rows.
     */
    private static void measure(
            Encoding encoding,
            Settings settings,
            Channel ch,
            List<BenchConsumer> consumers,
            @Nullable PrototypeBench prototype)
            throws Exception {
        boolean several = consumers.size() > 1;
        IntFunction<byte[]> bodies = i -> body(encoding, settings, i);
        int warmedUp = warmUpTargets(ch, consumers, encoding, settings, 0, "");
        if (prototype != null) {
            PrototypeComparison.printDefinition(encoding.tag());
            prototype.warmUp(
                    encoding.tag() + " prototype",
                    bodies,
                    settings.messages(),
                    settings.warmup(),
                    settings.warmupRounds());
            // The prototype runs in this JVM on the same protobuf-java and parquet-java code, and its warm-up
            // recompiles that code for its own calls: measured, the project's first pass after it spent 0.7 CPU-s
            // JIT compiling and 40 % more listener CPU than its later passes. So both warm up once more, in
            // turn, by the same rule, and every measured run of either starts from code compiled for both.
            warmedUp = warmUpTargets(ch, consumers, encoding, settings, warmedUp, " again");
            prototype.warmUp(
                    encoding.tag() + " prototype again",
                    bodies,
                    settings.messages(),
                    settings.warmup(),
                    settings.warmupRounds());
        }
        // the target compared with the raw rate (issue 10's ratio): the local folder, or the first target
        Target referenceTarget = settings.targets().contains(Target.LOCAL)
                ? Target.LOCAL
                : consumers.get(0).target();
        double bestEndToEnd = 0;
        double bestRaw = 0;
        List<String> rawRatios = new ArrayList<>();
        List<TargetComparison.Result> all = new ArrayList<>();
        List<PrototypeComparison.Pair> pairs = new ArrayList<>();
        for (int pass = 1; pass <= settings.passes(); pass++) {
            // messages no pass and no warm-up round sent before: equal bodies would be duplicates, which the
            // archive acknowledges without writing them again (each target gets the same ones: archives apart)
            int first = pass == 1 ? 0 : settings.messages() * (pass - 1) + warmedUp;
            String passTag = settings.passes() > 1 ? encoding.tag() + " #" + pass : encoding.tag();
            List<TargetComparison.Result> results = new ArrayList<>();
            // the prototype on the same messages: first in even passes, last in odd ones
            boolean prototypeFirst = pass % 2 == 0;
            PrototypeBench.Run prototypeRun = null;
            if (prototype != null && prototypeFirst) {
                prototypeRun = prototype.measure(bodies, first, settings.messages());
            }
            for (BenchConsumer c : TargetComparison.rotated(consumers, pass)) {
                String tag = several ? passTag + " " + c.target().label() : passTag;
                results.add(measured(ch, c, tag, encoding, settings, pass, first, warmedUp));
            }
            if (prototype != null && !prototypeFirst) {
                prototypeRun = prototype.measure(bodies, first, settings.messages());
            }
            // the raw reference right after each pass: the machine's speed moves within minutes
            RawReference raw = RawReference.measure(bodies, first, settings.messages());
            TargetComparison.Result reference = results.stream()
                    .filter(r -> r.target() == referenceTarget)
                    .findFirst()
                    .orElseThrow();
            if (prototypeRun != null) {
                PrototypeComparison.Pair pair =
                        new PrototypeComparison.Pair(pass, reference, prototypeRun, prototypeFirst);
                PrototypeComparison.printPass(passTag, pair);
                pairs.add(pair);
            }
            double ratio = reference.spansPerSecond() / raw.rowsPerSecond();
            System.out.printf(
                    Locale.ROOT,
                    "%-8s raw Parquet, same rows (%d runs), DirectWriter on 1 thread, no broker, no spool: %,.0f"
                            + " rows/s into %d files; end to end%s / raw = %.2f (issue 10: at least %.1f)%s; decoding"
                            + " alone (not in the raw rate) %.2f us per span%n",
                    passTag,
                    settings.runs(),
                    raw.rowsPerSecond(),
                    raw.files(),
                    several ? " (" + reference.target().label() + ")" : "",
                    ratio,
                    target(encoding),
                    several ? otherRatios(results, reference, raw) : "",
                    raw.decodeNanosPerRow() / 1e3);
            if (several) {
                TargetComparison.printPass(passTag, results);
            }
            bestEndToEnd = Math.max(bestEndToEnd, reference.spansPerSecond());
            bestRaw = Math.max(bestRaw, raw.rowsPerSecond());
            rawRatios.add(String.format(Locale.ROOT, "%.2f", ratio));
            all.addAll(results);
        }
        System.out.printf(
                Locale.ROOT,
                "%-8s end to end%s / raw over %d passes (each end-to-end run followed by a raw one): the faster"
                        + " end to end %,.0f spans/s / the faster raw %,.0f rows/s = %.2f (issue 10: at least"
                        + " %.1f); pass by pass %s%n",
                encoding.tag(),
                several ? " (" + referenceTarget.label() + ")" : "",
                settings.passes(),
                bestEndToEnd,
                bestRaw,
                bestEndToEnd / bestRaw,
                target(encoding),
                String.join(", ", rawRatios));
        if (several) {
            TargetComparison.printMedians(encoding.tag(), all, settings.passes());
        }
        PrototypeComparison.printMedians(encoding.tag(), pairs);
    }

    private static String otherRatios(
            List<TargetComparison.Result> results, TargetComparison.Result reference, RawReference raw) {
        StringBuilder out = new StringBuilder();
        for (TargetComparison.Result r : results) {
            if (r.target() != reference.target()) {
                out.append(String.format(
                        Locale.ROOT, ", %s / raw %.2f", r.target().label(), r.spansPerSecond() / raw.rowsPerSecond()));
            }
        }
        return out.toString();
    }

    private static void closeAll(List<BenchConsumer> consumers) throws IOException {
        IOException first = null;
        for (BenchConsumer c : consumers) {
            try {
                c.close();
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** One measured run of one consumer: fills its queue, starts its listener, waits until every row is committed. */
    private static TargetComparison.Result measured(
            Channel ch,
            BenchConsumer c,
            String tag,
            Encoding encoding,
            Settings settings,
            int pass,
            int first,
            int warmedUp)
            throws Exception {
        LensTopology topology = c.topology();
        MeterRegistry meters = c.meters();
        SimpleMessageListenerContainer container = c.container();
        ParquetArchive archive = c.archive();
        LensArchiveProperties archiveProperties = c.archiveProperties();
        container.stop();
        long bytes = fill(ch, topology, encoding, settings, first, first + settings.messages());
        // a full collection first (not in the CPU and GC figures below), then the heap after each of the run's
        HeapAfterGc heap = HeapAfterGc.start();

        ArchiveFiles files0 = ArchiveFiles.under(c.committedFiles());
        ArchiveStatus status0 = archive.status();
        AckLatency.Snapshot latency0 = AckLatency.take(meters);
        double acked0 = acked(meters);
        double decode0 = timerSeconds(meters, "lens.decode.duration");
        double handle0 = timerSeconds(meters, "lens.handle.duration");
        long cpu0 = processCpuNanos();
        ProcessCpu broker0 = ProcessCpu.now(ProcessCpu.BROKER);
        ProcessCpu postgres0 = ProcessCpu.now(ProcessCpu.POSTGRES);
        ThreadCpu threads0 = ThreadCpu.now();
        long gc0 = gcMillis();
        long t0 = System.nanoTime();
        container.start();
        try {
            awaitAcked(meters, acked0, settings.messages(), archive, t0, "the measured run");
            long tAcked = System.nanoTime();
            // the end of the stream: what is open is committed now, not when max-age would commit it (with an
            // object store, a file is committed once its upload returned)
            archive.commitNow();
            awaitCommitted(archive, t0);
            long tCommitted = System.nanoTime();
            HeapAfterGc.Reading heapAfterGc = heap.stop();

            Measured m = new Measured(
                    settings.messages(),
                    (long) settings.messages() * settings.spans(),
                    bytes,
                    (tCommitted - t0) / 1e9,
                    (tAcked - t0) / 1e9,
                    ch.messageCount(topology.queueName()),
                    ch.messageCount(topology.poisonQueueName()));
            double cpuSeconds = (processCpuNanos() - cpu0) / 1e9;
            ProcessCpu broker1 = ProcessCpu.now(ProcessCpu.BROKER);
            ProcessCpu postgres1 = ProcessCpu.now(ProcessCpu.POSTGRES);
            ThreadCpu threads1 = ThreadCpu.now();
            double gcSeconds = (gcMillis() - gc0) / 1e3;
            AckLatency.Snapshot latency = AckLatency.take(meters).since(latency0);
            ArchiveStatus status1 = archive.status();
            ArchiveFiles written = ArchiveFiles.under(c.committedFiles()).since(files0);
            StoreStatus store0 = status0.store();
            StoreStatus store1 = status1.store();

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
                    status1.commits().rows() - status0.commits().rows(),
                    m.spans(),
                    status1.commits().lostFiles() - status0.commits().lostFiles(),
                    status1.writing().earlyRowGroups() - status0.writing().earlyRowGroups());
            if (status1.commits().rows() - status0.commits().rows() != m.spans()) {
                // a rate is only a rate of rows written: duplicates or losses make it meaningless
                throw new IllegalStateException("rows committed in the measured run: "
                        + (status1.commits().rows() - status0.commits().rows()) + ", sent: " + m.spans());
            }
            long publishedFiles = store1.publishedFiles() - store0.publishedFiles();
            long publishedBytes = store1.publishedBytes() - store0.publishedBytes();
            long publishNanos = store1.publishNanos() - store0.publishNanos();
            System.out.printf(
                    Locale.ROOT,
                    "%-8s store %s: took %d files (%.1f MB) in %.2f s of the commit thread's time: %.1f MB/s while"
                            + " taking them, %.1f MB/s over the run's %.2f s; %d failed attempts%n",
                    tag,
                    store1.location(),
                    publishedFiles,
                    publishedBytes / 1e6,
                    publishNanos / 1e9,
                    publishNanos == 0 ? Double.NaN : publishedBytes / 1e6 / (publishNanos / 1e9),
                    publishedBytes / 1e6 / m.seconds(),
                    m.seconds(),
                    store1.failures() - store0.failures());
            ClaimsStatus claims0 = status0.claims();
            ClaimsStatus claims1 = status1.claims();
            if (claims0 != null && claims1 != null) {
                long claimed = claims1.claimed() - claims0.claimed();
                System.out.printf(
                        Locale.ROOT,
                        "%-8s claims in %s: %d message ids claimed (of %d messages), %d found claimed by another"
                                + " instance, %d failed attempts%n",
                        tag,
                        claims1.location(),
                        claimed,
                        m.messages(),
                        claims1.lost() - claims0.lost(),
                        claims1.failures() - claims0.failures());
                if (claimed != m.messages()) {
                    throw new IllegalStateException(
                            "claimed " + claimed + " message ids for " + m.messages() + " messages");
                }
            }
            TableStatus tables0 = status0.tables();
            TableStatus tables1 = status1.tables();
            if (tables0 != null && tables1 != null) {
                long appended = tables1.appendedFiles() - tables0.appendedFiles();
                System.out.printf(
                        Locale.ROOT,
                        "%-8s tables in %s: %d files appended in %d table commits, %d failed attempts%n",
                        tag,
                        tables1.location(),
                        appended,
                        tables1.commits() - tables0.commits(),
                        tables1.failures() - tables0.failures());
                if (appended != publishedFiles) {
                    throw new IllegalStateException(
                            "appended " + appended + " files to the tables, the store took " + publishedFiles);
                }
            }
            if (c.target().objectStore() && (publishedFiles != written.count() || publishedBytes != written.bytes())) {
                // committed means uploaded: every file the archive counts is an object in the store, whole
                throw new IllegalStateException("the store took " + publishedFiles + " files (" + publishedBytes
                        + " bytes), its folder holds " + written.count() + " new objects (" + written.bytes()
                        + " bytes)");
            }
            System.out.printf(
                    Locale.ROOT,
                    "%-8s runs: %d in the stream, %d with files; files per run max %d, min %d (issue 10: at most 2;"
                            + " max-age %d s)%n",
                    tag,
                    settings.runs(),
                    perRun.size(),
                    perRun.values().stream().mapToInt(Integer::intValue).max().orElse(0),
                    perRun.values().stream().mapToInt(Integer::intValue).min().orElse(0),
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
            if (broker0.seen() && broker1.seen()) {
                double brokerSeconds = broker1.secondsSince(broker0);
                System.out.printf(
                        Locale.ROOT,
                        "%-8s broker (beam.smp on this machine) used %.1f of %d cores meanwhile (%.1f CPU-s)%n",
                        tag,
                        brokerSeconds / m.seconds(),
                        Runtime.getRuntime().availableProcessors(),
                        brokerSeconds);
            }
            if (c.target().claims() && postgres0.seen() && postgres1.seen()) {
                double postgresSeconds = postgres1.secondsSince(postgres0);
                System.out.printf(
                        Locale.ROOT,
                        "%-8s PostgreSQL (postgres processes on this machine, other clients' work included) used %.1f"
                                + " of %d cores meanwhile (%.1f CPU-s)%n",
                        tag,
                        postgresSeconds / m.seconds(),
                        Runtime.getRuntime().availableProcessors(),
                        postgresSeconds);
            }
            Map<String, Double> byName = threads1.byName(threads0);
            double attributed =
                    byName.values().stream().mapToDouble(Double::doubleValue).sum();
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
                        waits.values().stream().mapToDouble(Double::doubleValue).sum(),
                        settings.concurrency(),
                        m.seconds(),
                        listenerCpu,
                        listenerWait,
                        settings.concurrency() * m.seconds() - listenerCpu - listenerWait);
            }
            return new TargetComparison.Result(
                    c.target(),
                    pass,
                    m.spansPerSecond(),
                    m.seconds(),
                    latency.percentileMillis(0.5),
                    latency.percentileMillis(0.99),
                    publishedFiles,
                    publishedBytes,
                    publishNanos,
                    written.medianBytes(),
                    perRun.values().stream().mapToInt(Integer::intValue).max().orElse(0),
                    heapAfterGc,
                    cpuSeconds);
        } finally {
            // with several targets, one consumer works at a time
            container.stop();
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

    /**
     * Waits until {@code count} messages more than {@code acked0} are acknowledged, checking the archive's store
     * and claim registry every {@link #CHECK_NANOS}; fails 5 minutes after {@code t0}, naming {@code what}.
     */
    private static void awaitAcked(
            MeterRegistry meters, double acked0, long count, ParquetArchive archive, long t0, String what)
            throws InterruptedException {
        long checked = t0;
        while (acked(meters) - acked0 < count) {
            if (System.nanoTime() - t0 > TIMEOUT_NANOS) {
                throw new IllegalStateException(
                        what + " not drained in 5 minutes: " + (acked(meters) - acked0) + " acknowledged");
            }
            if (System.nanoTime() - checked > CHECK_NANOS) {
                failIfFailing(archive);
                checked = System.nanoTime();
            }
            Thread.sleep(2);
        }
    }

    /** Waits until the archive has every row it took in a committed file, and nothing to write again. */
    private static void awaitCommitted(ParquetArchive archive, long since) throws InterruptedException {
        while (true) {
            ArchiveStatus s = archive.status();
            if (s.spool().entries() == 0
                    && s.writing().openFiles() == 0
                    && s.writing().rewriting() == 0) {
                return;
            }
            failIfFailing(s);
            if (System.nanoTime() - since > TIMEOUT_NANOS) {
                throw new IllegalStateException("the archive did not commit everything in 5 minutes: " + s);
            }
            Thread.sleep(1);
        }
    }

    /** Ends the bench when the archive's store or claim registry fails: the run would measure its retries. */
    private static void failIfFailing(ParquetArchive archive) {
        failIfFailing(archive.status());
    }

    private static void failIfFailing(ArchiveStatus s) {
        if (s.store().failingSince() != null) {
            throw new IllegalStateException("the archive's store " + s.store().location() + " fails: "
                    + s.store().lastError());
        }
        ClaimsStatus claims = s.claims();
        if (claims != null && claims.failingSince() != null) {
            throw new IllegalStateException(
                    "the claim registry " + claims.location() + " fails: " + claims.lastError());
        }
    }

    /**
     * Warms every target up in turn ({@link #warmUp}) with messages after the {@code sent} ones warm-ups sent
     * before; returns the warm-up messages sent in all, those included.
     */
    private static int warmUpTargets(
            Channel ch, List<BenchConsumer> consumers, Encoding encoding, Settings settings, int sent, String suffix)
            throws Exception {
        boolean several = consumers.size() > 1;
        int warmedUp = sent;
        for (BenchConsumer c : consumers) {
            c.container().start();
            // every warm-up round ends with its files committed: the first measured run starts with none open
            String tag = (several ? encoding.tag() + " " + c.target().label() : encoding.tag()) + suffix;
            warmedUp = Math.max(warmedUp, sent + warmUp(ch, c, tag, encoding, settings, sent));
            c.container().stop();
        }
        return warmedUp;
    }

    /**
     * Runs rounds of warm-up messages (seeds after the measured ones and the {@code before} warm-up messages sent
     * earlier, the same runs) through the running consumer, at least three, until the JIT compiler works less than
     * 5 % of two rounds in a row, or the rounds run out. Returns how many messages it took.
     */
    private static int warmUp(Channel ch, BenchConsumer c, String tag, Encoding encoding, Settings settings, int before)
            throws Exception {
        LensTopology topology = c.topology();
        MeterRegistry meters = c.meters();
        ParquetArchive archive = c.archive();
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        int perRound = settings.warmup();
        WarmUpRule rule = new WarmUpRule(tag);
        double acked0 = acked(meters);
        int sent = 0;
        for (int round = 0; round < settings.warmupRounds(); round++) {
            long jit0 = jit.getTotalCompilationTime();
            long t0 = System.nanoTime();
            int from = settings.messages() + before + sent;
            fill(ch, topology, encoding, settings, from, from + perRound);
            sent += perRound;
            awaitAcked(meters, acked0, sent, archive, t0, "warm-up round " + (round + 1));
            // a running consumer commits files every few minutes: the commit's code is part of the steady state
            archive.commitNow();
            awaitCommitted(archive, t0);
            long roundMillis = (System.nanoTime() - t0) / 1_000_000;
            long jitMillis = jit.getTotalCompilationTime() - jit0;
            if (rule.steadyAfter(round, perRound, roundMillis, jitMillis)) {
                break;
            }
        }
        return sent;
    }

    /** Publishes messages {@code from} to {@code to} (exclusive), persistent and confirmed; returns their bytes. */
    private static long fill(Channel ch, LensTopology topology, Encoding encoding, Settings settings, int from, int to)
            throws Exception {
        return publish(
                ch, topology.exchangeName(), Signal.SPANS.routingKey(), i -> body(encoding, settings, i), from, to);
    }

    /**
     * Publishes {@code bodies(from)} to {@code bodies(to - 1)} to an exchange, persistent, mandatory and confirmed
     * ({@code ch} has confirms on); returns their bytes.
     */
    static long publish(Channel ch, String exchange, String routingKey, IntFunction<byte[]> bodies, int from, int to)
            throws Exception {
        AMQP.BasicProperties persistent =
                new AMQP.BasicProperties.Builder().deliveryMode(2).build();
        long bytes = 0;
        for (int i = from; i < to; i++) {
            byte[] body = bodies.apply(i);
            bytes += body.length;
            ch.basicPublish(exchange, routingKey, true, persistent, body);
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
                                + " [--amqp-uri URI] [--targets local,s3,s3+claims] [--claims-url JDBC-URL]"
                                + " [--claims-user USER] [--prototype true|false]");
            }
            opts.put(args[i].substring(2), args[++i]);
        }
        return opts;
    }
}
