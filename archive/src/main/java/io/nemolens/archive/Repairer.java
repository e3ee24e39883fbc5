package io.nemolens.archive;

import io.nemolens.archive.parquet.MessageRows;
import io.nemolens.archive.parquet.OpenFiles;
import io.nemolens.archive.parquet.PartitionKey;
import io.nemolens.archive.spool.Spool;
import io.nemolens.decode.DecodedMessage;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.handlers.Encoding;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes rows again from the spool, on its own thread: at start, every entry the spool holds, for the
 * partitions no committed file already has (after a crash); at run time, the entries of a file that
 * failed, for its partition. Each entry's body is decoded again as the consumer decoded it. While the
 * archive cannot write, it waits and probes with backoff; nothing is given up.
 *
 * <p>Every job holds its entries (see {@link Holds}) until their rows are written again (into open
 * files, which then hold them), so the spool keeps them meanwhile.
 */
final class Repairer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Repairer.class);

    /** Which rows of an entry a job writes. */
    @FunctionalInterface
    interface Wanted {
        /**
         * @param entryPartitions every partition the entry's rows go to
         */
        boolean wanted(long seq, PartitionKey partition, List<PartitionKey> entryPartitions);
    }

    /** Entries from {@code first} to {@code last} (or the listed seqs), for the partitions {@code wanted} accepts. */
    record Job(long first, long last, long @Nullable [] seqs, Wanted wanted, String why) {}

    private final Spool spool;
    private final OtlpDecoder decoder;
    private final Holds holds;
    private final Writability writability;
    private final Path rejected;
    private final BlockingQueue<Job> jobs = new LinkedBlockingQueue<>();
    private final AtomicLong waiting = new AtomicLong();
    private final Thread thread;
    private volatile boolean stopped;
    private @Nullable OpenFiles files;

    /** @param rejected where the payload of an entry that no longer decodes is kept, for an operator */
    Repairer(Spool spool, OtlpDecoder decoder, Holds holds, Writability writability, Path rejected) {
        this.spool = spool;
        this.decoder = decoder;
        this.holds = holds;
        this.writability = writability;
        this.rejected = rejected;
        this.thread = new Thread(this::run, "lens-archive-repair");
        thread.setDaemon(true);
    }

    /** Starts the thread, which writes the rows into {@code files}; jobs submitted before wait for it. */
    void start(OpenFiles files) {
        this.files = files;
        thread.start();
    }

    /** Queues a job; its entries must already be held for it (one hold each, released when done). */
    void submit(Job job) {
        waiting.addAndGet(job.seqs() != null ? job.seqs().length : job.last() - job.first() + 1);
        jobs.add(job);
    }

    /** Entries queued for rewriting. */
    long waiting() {
        return waiting.get();
    }

    /** Whether no job is queued or under way. */
    boolean idle() {
        return waiting.get() == 0;
    }

    private void run() {
        while (!stopped) {
            Job job;
            try {
                job = jobs.take();
            } catch (InterruptedException e) {
                return;
            }
            long[] done = {job.first() - 1};
            try {
                if (job.seqs() != null) {
                    for (long seq : job.seqs()) {
                        awaitDurableOrFailed(seq);
                        rewrite(seq, seq, job, done);
                        if (done[0] != seq) {
                            // not in the spool (its append failed): nothing to write, nothing held
                            waiting.decrementAndGet();
                        }
                        done[0] = seq;
                    }
                } else if (job.last() >= job.first()) {
                    rewrite(job.first(), job.last(), job, done);
                }
            } catch (IOException | RuntimeException | Error e) {
                // an error too: the thread goes on, or nothing would ever be written again from the spool
                if (stopped) {
                    return;
                }
                log.error("rewriting spool entries ({}) failed: {}; trying again", job.why(), e.toString());
                submitRest(job, done[0]);
                pause(Duration.ofSeconds(1));
            }
        }
    }

    /**
     * A file can fail before the spool has made all its entries durable (the spool reads only durable
     * ones): wait until the entry is durable, or known to have failed (then there is nothing to write).
     */
    private void awaitDurableOrFailed(long seq) throws IOException {
        long backoff = TimeUnit.MICROSECONDS.toNanos(200);
        while (seq > spool.durableSeq() && !holds.failed(seq)) {
            if (stopped) {
                throw new IOException("stopping");
            }
            java.util.concurrent.locks.LockSupport.parkNanos(backoff);
            backoff = Math.min(backoff * 2, TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    /** Queues again what a failed job had not done yet. */
    private void submitRest(Job job, long lastDone) {
        if (job.seqs() != null) {
            long[] rest = java.util.Arrays.stream(job.seqs())
                    .filter(s -> s > lastDone)
                    .toArray();
            waiting.addAndGet(-rest.length);
            submit(new Job(0, -1, rest, job.wanted(), job.why()));
        } else {
            waiting.addAndGet(-(job.last() - lastDone));
            submit(new Job(lastDone + 1, job.last(), null, job.wanted(), job.why()));
        }
    }

    private void rewrite(long first, long last, Job job, long[] done) throws IOException {
        spool.read(first, last, (seq, appendedAt, payload) -> {
            if (stopped) {
                throw new IOException("stopping");
            }
            try {
                convert(seq, payload, job);
            } finally {
                waiting.decrementAndGet();
                holds.release(seq);
                done[0] = seq;
            }
        });
    }

    private void convert(long seq, byte[] payload, Job job) throws IOException {
        SpooledMessage m = SpooledMessage.decode(payload);
        DecodedMessage d;
        try {
            d = decoder.decode(
                    m.signal(),
                    m.body(),
                    m.encoding() == Encoding.JSON ? "application/json" : "application/x-protobuf");
        } catch (RuntimeException e) {
            keepRejected(seq, payload, e);
            return;
        }
        OpenFiles files = this.files;
        if (files == null) {
            throw new IllegalStateException("the repairer writes rows once it is started");
        }
        MessageRows rows = files.group(d.records());
        List<PartitionKey> partitions = rows.partitions();
        long backoff = 100;
        while (!writability.writable()) {
            try {
                writability.probe(partitions);
            } catch (IOException e) {
                pause(Duration.ofMillis(backoff));
                backoff = Math.min(backoff * 2, 5_000);
                if (stopped) {
                    throw new IOException("stopping");
                }
            }
        }
        files.write(seq, m.messageId(), rows, key -> job.wanted().wanted(seq, key, partitions));
    }

    /** An entry that no longer decodes (it did when it was taken): kept aside for an operator, not lost silently. */
    private void keepRejected(long seq, byte[] payload, RuntimeException e) throws IOException {
        Files.createDirectories(rejected);
        Path file = rejected.resolve("entry-" + seq + ".bin");
        Files.write(file, payload);
        log.error(
                "spool entry {} no longer decodes ({}); its payload is kept in {} and the entry is released",
                seq,
                e.toString(),
                file);
    }

    private void pause(Duration d) {
        try {
            TimeUnit.MILLISECONDS.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopped = true;
        }
    }

    @Override
    public void close() {
        stopped = true;
        thread.interrupt();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
