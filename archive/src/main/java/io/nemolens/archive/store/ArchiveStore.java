package io.nemolens.archive.store;

import java.io.IOException;

/**
 * Where committed archive files go: the local archive folder (the default), or an object store. The archive
 * builds every file locally, records it in its manifest (name, content id, spool entries) and then hands it
 * here, on its one commit thread; the file's spool entries are released once {@link #publish} returned.
 *
 * <p>Every failure is thrown as an {@link IOException}, and the archive retries it with backoff for as long as
 * it lasts (nothing is acknowledged beyond what the spool holds meanwhile); a store never retries forever
 * itself. Implementations must be thread-safe.
 */
public interface ArchiveStore extends AutoCloseable {

    /** Where files go, for status, health and logs (never with credentials): a folder, {@code s3://bucket/prefix}. */
    String location();

    /**
     * Whether committed files are removed from local disk once published (an object store), so that a file's
     * name there is derived from its content ({@link StagedFile#contentId()}), or renamed into place locally.
     */
    boolean remote();

    /**
     * Removes what this instance left half done (incomplete multipart uploads of its files, whose names contain
     * {@code -<instanceId>-}): an earlier run's, or an upload whose abort failed. Called at start, before
     * anything is published, and again on the commit thread once the store takes a file after failing; never
     * while a file is being published.
     */
    void cleanUp(String instanceId) throws IOException;

    /**
     * Publishes a file under its name and returns once the store holds it durably. Readers never see a part
     * of it. Publishing is conditional: when the name holds an object already, it succeeds if that object
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
