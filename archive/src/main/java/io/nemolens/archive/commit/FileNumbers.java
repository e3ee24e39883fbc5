package io.nemolens.archive.commit;

/**
 * Numbers the files this archive hands to its tables, in the order it hands them over: the files of one writer (one
 * spool) reach each table in the order of their numbers, so a table keeps only the highest number of each writer it
 * holds (its watermark) and knows from it every file of that writer it holds, after its snapshots expired and its
 * files were compacted too. Numbers never repeat: each start goes on above the numbers the manifest and the tables know
 * of, and above the start's time in microseconds (a spool restored from a backup). A file lost before it was published
 * leaves its number unused, which is harmless. Used under the committer's lock only.
 */
public final class FileNumbers {

    private final String writer;
    private long next;

    /**
     * @param writer the writer's id, as the tables know it
     * @param first the first number to give
     */
    public FileNumbers(String writer, long first) {
        if (first < 0) {
            throw new IllegalArgumentException("file numbers start at 0 or above: " + first);
        }
        this.writer = writer;
        this.next = first;
    }

    /** The writer's id, as the tables know it. */
    public String writer() {
        return writer;
    }

    /** The next number. */
    long next() {
        return next++;
    }
}
