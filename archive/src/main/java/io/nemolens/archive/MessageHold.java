package io.nemolens.archive;

import io.nemolens.handlers.Completion;

/**
 * One message's rows in one table, waiting for the files that hold them to be committed. Guarded by
 * the archive's lock; the completion is called outside it.
 */
final class MessageHold {

    private int openFiles;
    private Completion completion;
    private boolean failed;
    private boolean committing;

    void fileOpened() {
        openFiles++;
    }

    /** Attaches the completion once every row of the batch is written; abandoned holds never get one. */
    void attach(Completion c) {
        this.completion = c;
    }

    /** Some file of this message was handed to the committer. */
    void markCommitting() {
        committing = true;
    }

    boolean committing() {
        return committing;
    }

    /** A file holding rows of this message was committed; returns the completion to call if that was the last. */
    Completion fileCommitted() {
        openFiles--;
        return openFiles == 0 && !failed ? completion : null;
    }

    /** A file holding rows of this message was lost; returns the completion to fail, once. */
    Completion fileLost() {
        openFiles--;
        if (failed) {
            return null;
        }
        failed = true;
        return completion;
    }
}
