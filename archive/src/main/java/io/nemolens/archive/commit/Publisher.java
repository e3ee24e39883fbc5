package io.nemolens.archive.commit;

import io.nemolens.archive.parquet.ParquetFile;
import io.nemolens.archive.store.ArchiveStore;
import io.nemolens.archive.store.FileName;
import io.nemolens.archive.store.NameTakenException;
import io.nemolens.archive.store.StagedFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes finished files to the archive's store, on the commit thread: has the store name the file (an
 * object store names it after what it holds), records it in the manifest, then hands it to the store, retrying with backoff for as
 * long as the store fails (the file's spool entries stay held meanwhile, so nothing acknowledged is at risk).
 * A name the store finds taken by other content is replaced by the next one ({@code -1}, {@code -2}, ...).
 * Once the archive closes, a file is tried once more and then left: its spool entries are written again at
 * the next start.
 *
 * <p>What this instance left half done in the store (an earlier run's uploads, or an upload whose abort failed
 * while the store was down) is cleaned up at start and again once the store takes a file after failing, so
 * that a running instance does not keep incomplete uploads from every outage until it is restarted.
 */
public final class Publisher {

    private static final Logger log = LoggerFactory.getLogger(Publisher.class);
    private static final Duration FIRST_BACKOFF = Duration.ofMillis(500);
    private static final Duration LAST_BACKOFF = Duration.ofSeconds(30);

    private final Path root;
    private final String instanceId;
    private final ArchiveStore store;
    private final Manifest manifest;
    private final Holds holds;
    private final Consumer<String> published;
    private final RemoteStep step;
    private final AtomicLong publishedFiles = new AtomicLong();
    private final AtomicLong publishedBytes = new AtomicLong();
    private final AtomicLong publishNanos = new AtomicLong();
    /** Whether a file was left unpublished at the stop: every later one is too (see {@link #publish}). */
    private boolean leftUnpublished;
    /** Whether the store is to be cleaned up once it takes a file: a publication or the last clean-up failed. */
    private volatile boolean cleanUpDue;

    /**
     * @param root the archive's local folder (the files' local names are relative to it)
     * @param holds the message ids of the spool entries a file has rows of
     * @param published told the name of each file the store took
     */
    public Publisher(
            Path root,
            String instanceId,
            ArchiveStore store,
            Manifest manifest,
            Holds holds,
            Consumer<String> published,
            Clock clock) {
        this.root = root;
        this.instanceId = instanceId;
        this.store = store;
        this.manifest = manifest;
        this.holds = holds;
        this.published = published;
        this.step = new RemoteStep("the archive's store", store.location(), FIRST_BACKOFF, LAST_BACKOFF, clock);
    }

    /**
     * Records a finished file in the manifest and publishes it, retrying while the store fails.
     *
     * @return the file as the store took it (its name and content id), or {@code null} when the archive closed
     *     before the store took it (it is left unpublished)
     * @throws IOException when recording it in the manifest failed (the file is lost, its rows written again)
     */
    @Nullable
    public StagedFile publish(ParquetFile<?> file, long bytes) throws IOException {
        if (leftUnpublished) {
            // after one file left unpublished at the stop (it may be in the store all the same: an answer lost), no
            // later one may be published: the tables take a writer's files in the order of their numbers
            log.warn(
                    "the archive closes: {} stays unpublished too; its rows are written again at the next start",
                    file.committedPath());
            return null;
        }
        Path local = file.finishedPath();
        String contentId = contentId(file);
        FileName naming = new FileName(relative(file.committedPath()), instanceId, contentId);
        String[] name = {store.name(naming, 0)};
        manifest.append(new Manifest.Entry(name[0], file.seqs(), contentId, file.writerSeq()));
        long[] start = {0};
        StagedFile staged = step.untilClosed("publishing " + name[0], () -> {
            for (int variant = 1; ; variant++) {
                StagedFile s = new StagedFile(local, name[0], contentId, bytes, file.rows());
                start[0] = System.nanoTime();
                try {
                    store.publish(s);
                    return s;
                } catch (NameTakenException e) {
                    // the store answered: a name is taken by other content, the next one is tried at once
                    name[0] = store.name(naming, variant);
                    log.warn("{}; publishing it as {}", e.getMessage(), name[0]);
                    manifest.append(new Manifest.Entry(name[0], file.seqs(), contentId, file.writerSeq()));
                } catch (IOException | RuntimeException e) {
                    // a failed upload aborts itself, but the abort fails too while the store is away
                    cleanUpDue = true;
                    throw e;
                }
            }
        });
        if (staged == null) {
            leftUnpublished = true;
            log.warn(
                    "the archive closes while its store fails ({}): {} stays unpublished; its rows are written again"
                            + " at the next start",
                    step.lastError(),
                    name[0]);
            return null;
        }
        published.accept(staged.name());
        publishNanos.addAndGet(System.nanoTime() - start[0]);
        publishedFiles.incrementAndGet();
        publishedBytes.addAndGet(bytes);
        deleteLocalCopy(local);
        if (cleanUpDue) {
            cleanUp();
        }
        return staged;
    }

    /**
     * The store holds the file: its local copy goes, if the store copied it rather than moving it into place (one
     * left behind is removed at the next start).
     */
    private static void deleteLocalCopy(Path local) {
        try {
            Files.deleteIfExists(local);
        } catch (IOException e) {
            log.warn("deleting the local copy {} of a published file failed: {}", local, e.toString());
        }
    }

    /**
     * Removes what this instance left half done in the store (see {@link ArchiveStore#cleanUp}): at start, and
     * on the commit thread once the store takes a file after a failure. A failure is logged, and the clean-up
     * tried again after the next file the store takes.
     */
    public void cleanUp() {
        cleanUpDue = false;
        try {
            store.cleanUp(instanceId);
        } catch (IOException | RuntimeException e) {
            cleanUpDue = true;
            log.warn(
                    "cleaning up what instance {} left half done in {} failed ({}); tried again after the next"
                            + " file it takes",
                    instanceId,
                    store.location(),
                    e.toString());
        }
    }

    /** From now on a file is tried once more and then left unpublished (the archive closes). */
    public void closing() {
        step.closing();
    }

    /** The store as the commit path calls it: its failures. */
    public RemoteStep step() {
        return step;
    }

    /**
     * Why the archive takes no more messages now: the store fails and {@link Committer#BACKLOG_FILES} files wait for
     * it; or {@code null}.
     */
    public @Nullable String refusal(int waitingFiles) {
        if (!step.failing() || waitingFiles < Committer.BACKLOG_FILES) {
            return null;
        }
        return "the archive's store " + step.location() + " takes no files (" + step.lastError() + "); " + waitingFiles
                + " files wait for it";
    }

    /** Files the store took. */
    public long publishedFiles() {
        return publishedFiles.get();
    }

    /** Bytes of the files the store took. */
    public long publishedBytes() {
        return publishedBytes.get();
    }

    /** How long the store took to take them, in all. */
    public long publishNanos() {
        return publishNanos.get();
    }

    /**
     * What a file holds, as 32 hex digits: a hash of its partition and of the sorted ids of the messages it has
     * rows of. Two files with one content id hold the same rows.
     */
    String contentId(ParquetFile<?> file) {
        long[] seqs = file.seqs();
        String[] ids = new String[seqs.length];
        for (int i = 0; i < seqs.length; i++) {
            String id = holds.messageId(seqs[i]);
            ids[i] = id != null ? id : "seq:" + seqs[i];
        }
        Arrays.sort(ids);
        MessageDigest sha;
        try {
            sha = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JVM", e);
        }
        sha.update(file.key().relative().getBytes(StandardCharsets.UTF_8));
        for (String id : ids) {
            sha.update((byte) '\n');
            sha.update(id.getBytes(StandardCharsets.UTF_8));
        }
        return HexFormat.of().formatHex(sha.digest(), 0, 16);
    }

    private String relative(Path committed) {
        return root.relativize(committed).toString().replace('\\', '/');
    }
}
