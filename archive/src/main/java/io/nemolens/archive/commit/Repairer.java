package io.nemolens.archive.commit;

import io.nemolens.archive.parquet.MessageRows;
import io.nemolens.archive.parquet.OpenFiles;
import io.nemolens.archive.parquet.PartitionKey;
import io.nemolens.archive.spool.DaemonThreads;
import io.nemolens.archive.spool.Spool;
import io.nemolens.decode.DecodedMessage;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.handlers.Encoding;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
public final class Repairer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(Repairer.class);

    /** Which rows of an entry a job writes. */
    @FunctionalInterface
    interface Wanted {
        /**
         * @param entryPartitions every partition the entry's rows go to
         */
        boolean wanted(long seq, PartitionKey partition, List<PartitionKey> entryPartitions);
    }

    /**
     * Entries from {@code first} to {@code last} (or the listed seqs), for the partitions {@code wanted} accepts.
     *
     * @param commitWhenDone whether the files of the last wave go to the committer too once the job is done (the
     *     recovery at start: what a crash left is committed at once, so that a consumer that keeps crashing
     *     still makes progress); otherwise they stay open for the rows to come
     */
    record Job(long first, long last, long @Nullable [] seqs, Wanted wanted, String why, boolean commitWhenDone) {

        /** A job whose last wave's files stay open. */
        Job(long first, long last, long @Nullable [] seqs, Wanted wanted, String why) {
            this(first, last, seqs, wanted, why, false);
        }
    }

    private final Spool spool;
    private final OtlpDecoder decoder;
    private final Holds holds;
    private final ChangeSignal settled;
    private final Writability writability;
    private final Path rejected;
    private final BlockingQueue<Rewrite> jobs = new LinkedBlockingQueue<>();
    private final AtomicLong waiting = new AtomicLong();
    /** Jobs queued or under way: a job's last wave is committed after its last entry is done. */
    private final AtomicInteger jobsUnderWay = new AtomicInteger();
    /** Signalled when the last job queued is done, its last wave's files handed to the committer. */
    private final ChangeSignal idle = new ChangeSignal();
    /** The longest the wait for an entry to settle goes without looking again if no signal comes. */
    private static final Duration SAFETY_NET = Duration.ofMillis(100);

    private final Thread thread;
    private volatile boolean stopped;
    private @Nullable OpenFiles files;

    /**
     * @param settled signalled when the spool settles appends (made durable, or failed)
     * @param rejected where the payload of an entry that no longer decodes is kept, for an operator
     */
    public Repairer(
            Spool spool,
            OtlpDecoder decoder,
            Holds holds,
            ChangeSignal settled,
            Writability writability,
            Path rejected) {
        this.spool = spool;
        this.decoder = decoder;
        this.holds = holds;
        this.settled = settled;
        this.writability = writability;
        this.rejected = rejected;
        this.thread = DaemonThreads.of("lens-archive-repair", this::run);
    }

    /** Starts the thread, which writes the rows into {@code files}; jobs submitted before wait for it. */
    public void start(OpenFiles files) {
        this.files = files;
        thread.start();
    }

    /** Queues a job; its entries must already be held for it (one hold each, released when done). */
    void submit(Job job) {
        jobsUnderWay.incrementAndGet();
        waiting.addAndGet(job.seqs() != null ? job.seqs().length : job.last() - job.first() + 1);
        jobs.add(new Rewrite(job));
    }

    /** Entries queued for rewriting. */
    public long waiting() {
        return waiting.get();
    }

    /** Whether no job is queued or under way (the files of a job's last wave handed to the committer). */
    public boolean idle() {
        return jobsUnderWay.get() == 0 && waiting.get() == 0;
    }

    /**
     * Waits until no job is queued or under way, at most {@code timeout}.
     *
     * @return whether none is
     * @throws InterruptedException when the waiting thread is interrupted
     */
    public boolean awaitIdle(Duration timeout) throws InterruptedException {
        return idle.await(this::idle, timeout);
    }

    /** An entry of a job is done: written, or found to have nothing to write. */
    private void entryDone() {
        waiting.decrementAndGet();
    }

    /** A job is done, its last wave's files handed to the committer if it commits them. */
    private void jobDone() {
        if (jobsUnderWay.decrementAndGet() == 0 && waiting.get() == 0) {
            idle.signal();
        }
    }

    private void run() {
        while (!stopped) {
            Rewrite rewrite;
            try {
                rewrite = jobs.take();
            } catch (InterruptedException e) {
                return;
            }
            try {
                rewrite.run();
                jobDone();
            } catch (IOException | RuntimeException | Error e) {
                // an error too: the thread goes on, or nothing would ever be written again from the spool
                if (stopped) {
                    return;
                }
                log.error("rewriting spool entries ({}) failed: {}; trying again", rewrite.job.why(), e.toString());
                jobs.add(rewrite); // it goes on where it stopped, after the jobs queued meanwhile
                pause(Duration.ofSeconds(1));
            }
        }
    }

    /**
     * A job under way. It writes in waves, so that it never opens more files than fit: a pass over its entries
     * writes the rows of the first partitions it meets, at most half of {@code maxOpenFiles} (the other half
     * stays for the messages coming in meanwhile), and leaves the rest for the next pass; then the wave's files
     * go to the committer and the next pass writes the next partitions. An entry is done (its hold released)
     * once all its rows are written. With few partitions, as usual, there is one pass and the files stay open
     * for the rows to come. It goes on where it stopped after a failure: the entries done, the pass and the entry
     * it was at, the partitions written.
     */
    private final class Rewrite {
        private final Job job;
        /** The entries done, by index: {@code seq - first}, or the position in {@code seqs}. */
        private final BitSet done = new BitSet();
        /** The partitions of the waves before this one: their rows of every entry are written. */
        private final Set<PartitionKey> written = new HashSet<>();
        /** This wave's partitions. */
        private final Set<PartitionKey> wave = new HashSet<>();
        /** Whether this pass left partitions for a later one; whether the entry at hand did. */
        private boolean more;

        private boolean entryLeftSome;
        /** The index this pass goes on from. */
        private int next;

        private int waves = 1;

        Rewrite(Job job) {
            this.job = job;
        }

        void run() throws IOException {
            OpenFiles files = files();
            while (true) {
                pass(files);
                if (!more) {
                    if (job.commitWhenDone()) {
                        files.commit(wave);
                    }
                    if (waves > 1) {
                        log.info(
                                "rewriting spool entries ({}): done in {} waves of up to {} partitions",
                                job.why(),
                                waves,
                                waveSize(files));
                    }
                    return;
                }
                // the wave is written: its files go to be committed, and the next pass writes the next partitions
                files.commit(wave);
                written.addAll(wave);
                wave.clear();
                more = false;
                next = 0;
                waves++;
            }
        }

        private void pass(OpenFiles files) throws IOException {
            long[] seqs = job.seqs();
            if (seqs == null) {
                if (job.last() >= job.first() + next) {
                    spool.read(job.first() + next, job.last(), (seq, appendedAt, payload) -> {
                        if (stopped) {
                            throw new IOException("stopping");
                        }
                        int index = (int) (seq - job.first());
                        if (!done.get(index)) {
                            entry(files, index, seq, appendedAt, payload);
                        }
                        next = index + 1;
                    });
                }
                return;
            }
            for (; next < seqs.length; next++) {
                if (done.get(next)) {
                    continue;
                }
                long seq = seqs[next];
                awaitDurableOrFailed(seq);
                int index = next;
                boolean[] read = {false};
                spool.read(seq, seq, (s, appendedAt, payload) -> {
                    read[0] = true;
                    entry(files, index, s, appendedAt, payload);
                });
                if (!read[0]) {
                    // not in the spool (its append failed): nothing to write, nothing held
                    done.set(index);
                    entryDone();
                }
            }
        }

        /** Writes an entry's rows of this wave's partitions; it is done once it has none left for a later wave. */
        private void entry(OpenFiles files, int index, long seq, long appendedAt, byte[] payload) throws IOException {
            SpooledMessage m = SpooledMessage.decode(payload);
            DecodedMessage d;
            try {
                d = decoder.decode(
                        m.signal(),
                        m.body(),
                        m.encoding() == Encoding.JSON ? "application/json" : "application/x-protobuf");
            } catch (RuntimeException e) {
                keepRejected(seq, payload, e);
                done(index, seq);
                return;
            }
            MessageRows rows = files.group(d.records());
            List<PartitionKey> partitions = rows.partitions();
            awaitWritable(partitions);
            entryLeftSome = false;
            try {
                files.write(
                        seq,
                        appendedAt,
                        m.messageId(),
                        rows,
                        key -> job.wanted().wanted(seq, key, partitions) && admit(key, files));
            } finally {
                // done as well when writing threw part way (the files of the rows written hold the entry now)
                if (!entryLeftSome) {
                    done(index, seq);
                }
            }
        }

        /** Whether this pass writes the partition's rows: it is in this wave, or the wave has room for it. */
        private boolean admit(PartitionKey key, OpenFiles files) {
            if (written.contains(key)) {
                return false;
            }
            if (wave.contains(key)) {
                return true;
            }
            if (wave.size() < waveSize(files)) {
                wave.add(key);
                return true;
            }
            more = true;
            entryLeftSome = true;
            return false;
        }

        private void done(int index, long seq) {
            done.set(index);
            entryDone();
            holds.release(seq);
        }
    }

    /** Partitions per wave: half of the files that may be open. */
    private static int waveSize(OpenFiles files) {
        return Math.max(1, files.maxOpenFiles() / 2);
    }

    private OpenFiles files() {
        OpenFiles files = this.files;
        if (files == null) {
            throw new IllegalStateException("the repairer writes rows once it is started");
        }
        return files;
    }

    /**
     * A file can fail before the spool has made all its entries durable (the spool reads only durable
     * ones): wait until the entry is durable, or known to have failed (then there is nothing to write). Woken
     * when the spool settles appends; the timed wait is a safety net.
     */
    private void awaitDurableOrFailed(long seq) throws IOException {
        try {
            while (!settled.await(() -> stopped || seq <= spool.durableSeq() || holds.failed(seq), SAFETY_NET)) {
                // not told within the safety net: look again
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopped = true;
        }
        if (stopped) {
            throw new IOException("stopping");
        }
    }

    /** While the archive cannot write, probes the entry's partitions with backoff until it can. */
    private void awaitWritable(List<PartitionKey> partitions) throws IOException {
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
