package io.nemolens.archive;

import java.util.List;

/**
 * Told of four moments of the archive's commit path, in the order a message meets them: its append is durable in
 * the spool and its acknowledgement goes to the broker next ({@link #durable}); its id goes to the claim registry
 * with others ({@link #claiming}, only with a registry); the store took a file with its rows, whose spool entries
 * the archive releases next, or, with tables, appends it to its table next ({@link #published}); with tables, a wave
 * of files is in its tables and their spool entries are released next ({@link #appended}). A listener observes; it decides nothing: the archive calls it
 * on its own threads, a listener returns quickly, and what it throws is logged and otherwise ignored. Every
 * method does nothing unless overridden.
 *
 * <p>The application's beans of this type are the archive's listeners (in {@code @Order}); crash tests register
 * one that halts the process at one of these moments, from their own class path.
 */
public interface CommitListener {

    /**
     * A message's append is durable in the spool (and its id registered for a claim, with a registry); its
     * acknowledgement has not reached the broker yet.
     */
    default void durable(String messageId) {}

    /** Messages are durable in the spool; their ids are about to be claimed in the registry, as one batch. */
    default void claiming(List<String> messageIds) {}

    /**
     * The store took a committed file ({@code name}, relative to the archive's root or bucket prefix); the
     * archive has not yet released the spool entries it holds rows of.
     */
    default void published(String name) {}

    /**
     * With tables: the tables hold these files now ({@code names}, relative to the archive's root or bucket prefix);
     * the archive has not yet released the spool entries they hold rows of.
     */
    default void appended(List<String> names) {}
}
