package io.nemolens.archive.store;

import java.io.IOException;

/**
 * Where committed archive files go: the local archive folder (the default), or an object store. The archive
 * builds every file locally, asks the store for its name ({@link #name}), records it in its manifest (name,
 * content id, spool entries) and then hands it here, on its one commit thread; the file's spool entries are
 * released once {@link #publish} returned. What the implementations differ in, they decide themselves: callers
 * never ask which kind of store this is.
 *
 * <p>Every failure is thrown as an {@link IOException}, and the archive retries it with backoff for as long as
 * it lasts (nothing is acknowledged beyond what the spool holds meanwhile); a store never retries forever
 * itself. Implementations must be thread-safe.
 */
public interface ArchiveStore extends AutoCloseable {

    /** Where files go, for status, health and logs (never with credentials): a folder, {@code s3://bucket/prefix}. */
    String location();

    /**
     * The name a finished file is published under: {@code variant} is 0 at first, and counts up each time the
     * store refused the name with {@link NameTakenException}. The folder keeps the file's local name; an object
     * store names it after what it holds ({@link FileName#byContent}), so that a file written again after a crash
     * goes under the name of the first attempt and {@link #holds} finds it.
     */
    String name(FileName file, int variant);

    /**
     * Whether a name the manifest records may still hold its file, told without asking far away: the manifest
     * keeps the entries of names that may. The folder looks; an object store says yes (only {@link #holds}
     * can tell it, and that costs a request).
     */
    boolean mayHold(String name);

    /**
     * Removes what this instance left half done (incomplete multipart uploads of its files, whose names contain
     * {@code -<instanceId>-}): an earlier run's, or an upload whose abort failed. Called at start, before
     * anything is published, and again on the commit thread once the store takes a file after failing; never
     * while a file is being published.
     */
    void cleanUp(String instanceId) throws IOException;

    /**
     * Publishes a file under its name and returns once the store holds it durably. Readers never see a part
     * of it. A store may move the staged local file into place or copy it; once this returned, the archive
     * removes the local file if it is still there. Publishing is conditional: when the name holds an object already, it succeeds if that object
     * has the same content id (an earlier attempt got through), and throws {@link NameTakenException}
     * otherwise; it never overwrites.
     */
    void publish(StagedFile file) throws IOException;

    /**
     * Whether the name holds the file with this content id (at start: did a recorded publication get through
     * before a crash?).
     *
     * @throws IOException when the store cannot tell now
     */
    boolean holds(String name, String contentId) throws IOException;

    @Override
    void close();
}
