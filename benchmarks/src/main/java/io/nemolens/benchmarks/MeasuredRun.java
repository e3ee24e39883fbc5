package io.nemolens.benchmarks;

import com.rabbitmq.client.Channel;
import io.micrometer.core.instrument.MeterRegistry;
import io.nemolens.archive.ArchiveStatus;
import io.nemolens.archive.ClaimsStatus;
import io.nemolens.archive.ParquetArchive;
import io.nemolens.archive.StoreStatus;
import io.nemolens.archive.TableStatus;
import io.nemolens.archive.autoconfigure.LensArchiveProperties;
import io.nemolens.handlers.Encoding;
import io.nemolens.topology.LensTopology;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.Map;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;

/**
 * One measured run of one of the end-to-end bench's consumers, its checks (every row committed once, every file in
 * the store, every message id claimed, every file appended to the tables) and its report: rate, acknowledgements,
 * files, store, claims, tables, files per run, CPU by process, thread and role.
 */
final class MeasuredRun {

    private MeasuredRun() {}

    /** One measured run of one consumer: fills its queue, starts its listener, waits until every row is committed. */
    static TargetComparison.Result measured(
            Channel ch,
            BenchConsumer c,
            String tag,
            Encoding encoding,
            BenchSettings settings,
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
        long bytes = c.fill(ch, encoding, settings, first, first + settings.messages());
        // a full collection first (not in the CPU and GC figures below), then the heap after each of the run's
        HeapAfterGc heap = HeapAfterGc.start();

        ArchiveFiles files0 = ArchiveFiles.under(c.committedFiles());
        ArchiveStatus status0 = archive.status();
        AckLatency.Snapshot latency0 = AckLatency.take(meters);
        double acked0 = c.acked();
        double decode0 = ArchiveWaits.timerSeconds(meters, "lens.decode.duration");
        double handle0 = ArchiveWaits.timerSeconds(meters, "lens.handle.duration");
        long cpu0 = ProcessCpu.ownNanos();
        ProcessCpu broker0 = ProcessCpu.now(ProcessCpu.BROKER);
        ProcessCpu postgres0 = ProcessCpu.now(ProcessCpu.POSTGRES);
        ThreadCpu threads0 = ThreadCpu.now();
        long gc0 = gcMillis();
        long t0 = System.nanoTime();
        container.start();
        try {
            c.awaitAcked(acked0, settings.messages(), t0, "the measured run");
            long tAcked = System.nanoTime();
            // the end of the stream: what is open is committed now
            c.commitAll(t0);
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
            double cpuSeconds = (ProcessCpu.ownNanos() - cpu0) / 1e9;
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
                    ArchiveWaits.timerSeconds(meters, "lens.decode.duration") - decode0,
                    ArchiveWaits.timerSeconds(meters, "lens.handle.duration") - handle0);
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

    private static long gcMillis() {
        long total = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            total += Math.max(0, gc.getCollectionTime());
        }
        return total;
    }
}
