package io.nemolens.benchmarks;

import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * Issue 20's yardstick in the bench's output, run in a JVM of its own since issue 35 ({@link PrototypeBench#LABEL}):
 * per pass, the bare prototype's run beside the project's (the reference target's) on the same messages, and the
 * ratio project / prototype; over the passes, the medians. The wording of the lines is that of the in-process
 * prototype's before it, where a figure means the same; the label says which prototype it is.
 */
final class PrototypeComparison {

    /** One pass: the project's measured run and the prototype's, and which ran first. */
    record Pair(int pass, TargetComparison.Result project, PrototypeBench.Run prototype, boolean prototypeFirst) {

        /** The project's rate over the prototype's. */
        double ratio() {
            return project.spansPerSecond() / prototype.result().spansPerSecond();
        }
    }

    private PrototypeComparison() {}

    /** What the prototype is and the JVM it runs in, once per invocation. */
    static void printDefinition(String tag, PrototypeProcess.Ready jvm) {
        System.out.printf(
                Locale.ROOT,
                "%-8s %s (issue 20's yardstick; pid %d, Java %s, max heap %d MiB, collectors %s): %d channels with a thread each, prefetch %d, protobuf-java,"
                        + " one Avro record per span through parquet-avro into one zstd (level %d) file per thread, ack"
                        + " every %dth message (multiple) once its rows are handed to the writer, the rest at the end;"
                        + " no spool, no fsync, no de-duplication, no file per run; its time ends when every message is"
                        + " acknowledged and both files closed%n",
                tag,
                PrototypeBench.LABEL,
                jvm.pid(),
                jvm.javaVersion(),
                jvm.maxHeapMiB(),
                String.join(", ", jvm.collectors()),
                BarePrototype.CHANNELS,
                BarePrototype.PREFETCH,
                BarePrototype.ZSTD_LEVEL,
                BarePrototype.ACK_EVERY);
    }

    /** The lines of one pass. */
    static void printPass(String tag, Pair p) {
        BarePrototype.Result r = p.prototype().result();
        TargetComparison.Result project = p.project();
        HeapAfterGc.Reading heap = p.prototype().heap();
        System.out.printf(
                Locale.ROOT,
                "%-8s %s: %d messages (%.1f MB), %,d spans in %.2f s: %,.0f spans/s; project (%s) %,.0f spans/s"
                        + " = %.2f of the prototype (%s first); its JVM used %.1f cores meanwhile (%.1f CPU-s), broker"
                        + " %.1f%n",
                tag,
                PrototypeBench.LABEL,
                r.messages(),
                p.prototype().bytes() / 1e6,
                r.spans(),
                r.seconds(),
                r.spansPerSecond(),
                project.target().label(),
                project.spansPerSecond(),
                p.ratio(),
                p.prototypeFirst() ? "prototype" : "project",
                p.prototype().cpuSeconds() / r.seconds(),
                p.prototype().cpuSeconds(),
                p.prototype().brokerCpuSeconds() / r.seconds());
        System.out.printf(
                Locale.ROOT,
                "%-8s standalone prototype: delivery to ack p50 %.1f ms, p99 %.1f ms over the %d messages acknowledged by every"
                        + " %dth; %d acknowledged at the end of the stream, after at most %.0f ms (project: p50 %.1f ms,"
                        + " p99 %.1f ms)%n",
                tag,
                r.ackPercentileMillis(0.5),
                r.ackPercentileMillis(0.99),
                r.steadyAckNanos().length,
                BarePrototype.ACK_EVERY,
                r.finalAcks(),
                r.finalAckMaxNanos() / 1e6,
                project.p50Millis(),
                project.p99Millis());
        System.out.printf(
                Locale.ROOT,
                "%-8s standalone prototype: heap after GC at most %s (project: %s); files %d, one per thread with every run in"
                        + " each (%.1f MB, %.0f bytes per span), median %.2f MB (project: %d files, median %.2f MB, at"
                        + " most %d per run)%n",
                tag,
                heap(heap),
                heap(project.heap()),
                r.files(),
                r.bytes() / 1e6,
                (double) r.bytes() / r.spans(),
                r.medianFileBytes() / 1e6,
                project.publishedFiles(),
                project.medianFileBytes() / 1e6,
                project.maxFilesPerRun());
    }

    /** The heap after GC: after any collection, after the full ones, and before the run. */
    static String heap(HeapAfterGc.Reading h) {
        return String.format(
                Locale.ROOT,
                "%.0f MiB after any of %d collections, %s after the %d full, from %.0f MiB before the run",
                h.maxAfterGcMiB(),
                h.collections(),
                h.major() == 0 ? "none" : String.format(Locale.ROOT, "%.0f MiB", h.maxAfterFullMiB()),
                h.major(),
                h.baselineMiB());
    }

    /** The medians over the passes: the {@code prototype} summary line. */
    static void printMedians(String tag, List<Pair> pairs) {
        if (pairs.isEmpty()) {
            return;
        }
        System.out.printf(
                Locale.ROOT,
                "%-8s %s over %d passes (medians; alternating, project first in odd passes): %,.0f spans/s"
                        + " (passes %s); project (%s) %,.0f spans/s (passes %s); project / prototype %.2f (passes %s);"
                        + " ack p50 %.1f ms, p99 %.1f ms (project %.1f, %.1f); heap after GC at most %.0f MiB (project"
                        + " %.0f), after a full collection at most %s (project %s); CPU-s %.1f (project %.1f); median"
                        + " file %.2f MB (project %.2f)%n",
                tag,
                PrototypeBench.LABEL,
                pairs.size(),
                median(pairs, p -> p.prototype().result().spansPerSecond()),
                join(pairs, p -> p.prototype().result().spansPerSecond(), "%,.0f"),
                pairs.get(0).project().target().label(),
                median(pairs, p -> p.project().spansPerSecond()),
                join(pairs, p -> p.project().spansPerSecond(), "%,.0f"),
                median(pairs, Pair::ratio),
                join(pairs, Pair::ratio, "%.2f"),
                median(pairs, p -> p.prototype().result().ackPercentileMillis(0.5)),
                median(pairs, p -> p.prototype().result().ackPercentileMillis(0.99)),
                median(pairs, p -> p.project().p50Millis()),
                median(pairs, p -> p.project().p99Millis()),
                median(pairs, p -> p.prototype().heap().maxAfterGcMiB()),
                median(pairs, p -> p.project().heap().maxAfterGcMiB()),
                afterFull(pairs, p -> p.prototype().heap()),
                afterFull(pairs, p -> p.project().heap()),
                median(pairs, p -> p.prototype().cpuSeconds()),
                median(pairs, p -> p.project().cpuSeconds()),
                median(pairs, p -> p.prototype().result().medianFileBytes()) / 1e6,
                median(pairs, p -> p.project().medianFileBytes()) / 1e6);
    }

    /** Per pass, the most heap after a full collection ({@code -} for a pass without one). */
    private static String afterFull(List<Pair> pairs, Function<Pair, HeapAfterGc.Reading> heap) {
        return pairs.stream()
                .map(p -> {
                    HeapAfterGc.Reading h = heap.apply(p);
                    return h.major() == 0 ? "-" : String.format(Locale.ROOT, "%.0f", h.maxAfterFullMiB());
                })
                .collect(Collectors.joining(", ", "", " MiB"));
    }

    private static double median(List<Pair> pairs, ToDoubleFunction<Pair> f) {
        return TargetComparison.median(pairs.stream().mapToDouble(f).toArray());
    }

    private static String join(List<Pair> pairs, ToDoubleFunction<Pair> f, String format) {
        return pairs.stream()
                .map(p -> String.format(Locale.ROOT, format, f.applyAsDouble(p)))
                .collect(Collectors.joining(", "));
    }
}
