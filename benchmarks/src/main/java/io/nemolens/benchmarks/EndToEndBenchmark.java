package io.nemolens.benchmarks;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.nemolens.archive.DirectWriter;
import io.nemolens.archive.ParquetArchive;
import io.nemolens.handlers.Encoding;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntFunction;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

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
 * {@code --encodings protobuf,json}, {@code --amqp-uri URI} (amqp://guest:guest@127.0.0.1:5672),
 * {@code --targets local,s3,s3+claims} (local), {@code --claims-url JDBC-URL}
 * (jdbc:postgresql://127.0.0.1:5432/test), {@code --claims-user USER} (postgres), {@code --prototype true|false}
 * (true).
 *
 * <p><b>The bare prototype</b> (issue 20's yardstick, protobuf only; {@link BarePrototype}: with OTLP/JSON it reads
 * the same messages as protobuf, the yardstick OTLP/JSON is held to), since issue 35 the
 * <em>standalone prototype</em>: in a JVM of its own ({@link PrototypeProcess}, started by {@link PrototypeBench}
 * on this JVM's {@code java} and class path with {@code -Xmx1g} and the JVM's default collector, as a user would
 * run a prototype, and kept for the invocation), on a quorum queue of its own, filled with the same messages before
 * each of its runs, warmed up once by the same rule in its own JVM, and measured in every pass, after the targets
 * in odd passes and before them in even ones: spans/s from the start of consuming until every message is
 * acknowledged and both its files closed, the ratio project (the reference target) / prototype, ack p50/p99, the
 * heap after GC, its files and its JVM's CPU time ({@link PrototypeComparison}); at the end, the medians. Every
 * measured run, the project's and the prototype's, starts after a full collection in its JVM ({@link HeapAfterGc}).
 * Before issue 35 the prototype ran in this JVM, beside the service's contexts in its 512 MB heap, which starved
 * it (issue 35: 136,000 spans/s in process, 156,000-198,000 in a JVM of its own).
 *
 * <p>The jobs are in classes of their own: the options and messages ({@link BenchSettings}), publishing
 * ({@link BenchPublishing}), the consumers' warm-up ({@link TargetWarmUp}), one measured run, its checks and its
 * report ({@link MeasuredRun}), the waits on a running consumer ({@link ArchiveWaits}); this class runs the
 * passes.
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

    private EndToEndBenchmark() {}

    public static void main(String[] args) throws Exception {
        BenchSettings settings = BenchSettings.parse(args);
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
        for (Encoding encoding : settings.encodings()) {
            run(encoding, settings);
        }
    }

    /** Issue 10's target for end to end / raw: protobuf at least 0.9, OTLP/JSON at least 0.7. */
    private static double target(Encoding encoding) {
        return encoding == Encoding.JSON ? 0.7 : 0.9;
    }

    private static void run(Encoding encoding, BenchSettings settings) throws Exception {
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
                if (settings.prototype()) {
                    try (PrototypeBench prototype = PrototypeBench.start(settings.amqpUri(), ch)) {
                        measure(encoding, settings, ch, consumers, prototype);
                    }
                } else {
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
            BenchSettings settings,
            Channel ch,
            List<BenchConsumer> consumers,
            @Nullable PrototypeBench prototype)
            throws Exception {
        boolean several = consumers.size() > 1;
        IntFunction<byte[]> bodies = i -> settings.body(encoding, i);
        // the prototype decodes protobuf only (issue 20): with OTLP/JSON it reads the same messages as protobuf,
        // the yardstick issue 35 compares OTLP/JSON with
        IntFunction<byte[]> prototypeBodies = i -> settings.body(Encoding.PROTOBUF, i);
        int warmedUp = TargetWarmUp.all(ch, consumers, encoding, settings);
        if (prototype != null) {
            // its own JVM, its own JIT: its warm-up recompiles nothing of this JVM's (issue 35), so one will do
            PrototypeComparison.printDefinition(encoding.tag(), prototype.jvm());
            if (encoding != Encoding.PROTOBUF) {
                System.out.printf(
                        Locale.ROOT,
                        "%-8s prototype: decodes protobuf only (issue 20): it reads the same messages as protobuf%n",
                        encoding.tag());
            }
            prototype.warmUp(
                    encoding.tag() + " prototype",
                    prototypeBodies,
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
                prototypeRun = prototype.measure(prototypeBodies, first, settings.messages());
            }
            for (BenchConsumer c : TargetComparison.rotated(consumers, pass)) {
                String tag = several ? passTag + " " + c.target().label() : passTag;
                results.add(MeasuredRun.measured(ch, c, tag, encoding, settings, pass, first, warmedUp));
            }
            if (prototype != null && !prototypeFirst) {
                prototypeRun = prototype.measure(prototypeBodies, first, settings.messages());
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
}
