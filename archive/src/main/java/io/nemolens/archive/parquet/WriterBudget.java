package io.nemolens.archive.parquet;

/**
 * How many files the memory budget ({@code lens.archive.max-buffer-memory}) lets be open: what an open file's
 * writer holds whatever its rows, the default cap on open files, the most a budget allows, and the message that
 * refuses a cap it does not fit. {@link OpenFiles} keeps to these.
 */
public final class WriterBudget {

    /**
     * What an open file's writer holds per column of its table, whatever its rows: measured 11 to 14 KB (most of
     * it the 16 KB first slab of each dictionary-encoded column's value indices, {@code IntList}, which the
     * buffered size counts only as it fills; BENCHMARKS.md, "Open files"), counted as the most.
     */
    static final long WRITER_BYTES_PER_COLUMN = 14L << 10;

    /** The default cap: one open file per this much of the memory budget. */
    private static final long BUDGET_BYTES_PER_OPEN_FILE = 1L << 20;

    /** The share of the budget that the writers of {@code maxOpenFiles} files of the widest table may take. */
    private static final double MAX_WRITER_SHARE = 0.75;

    /** The widest table's writer (with the default dedicated columns), computed once. */
    private static final long LARGEST_WRITER_BYTES = Tables.defaults().all().stream()
            .mapToLong(WriterBudget::writerBytes)
            .max()
            .orElseThrow();

    private WriterBudget() {}

    /** What the writer of an open file of {@code table} holds in memory whatever its rows. */
    static long writerBytes(ArchiveTable<?> table) {
        return table.schema().getColumns().size() * WRITER_BYTES_PER_COLUMN;
    }

    /** What the writer of an open file of the widest table holds (the most an open file costs, rows aside). */
    public static long largestWriterBytes() {
        return LARGEST_WRITER_BYTES;
    }

    /** The default cap on open files for a memory budget: one per MB of it (96 for 96 MB), at least one. */
    public static int defaultMaxOpenFiles(long budgetBytes) {
        return (int) Math.max(1, Math.min(maxOpenFiles(budgetBytes), budgetBytes / BUDGET_BYTES_PER_OPEN_FILE));
    }

    /**
     * The most files a memory budget lets be open at once: their writers, of the widest table, take at most three
     * quarters of it, so that their rows keep a quarter at least (at least one file).
     */
    public static int maxOpenFiles(long budgetBytes) {
        return (int) Math.max(
                1, Math.min(Integer.MAX_VALUE, (long) (budgetBytes * MAX_WRITER_SHARE) / largestWriterBytes()));
    }

    /** Why {@code maxOpenFiles} does not fit {@code budgetBytes}, and what would. */
    public static String tooManyOpenFiles(int maxOpenFiles, long budgetBytes) {
        long needed = (long) Math.ceil(maxOpenFiles * largestWriterBytes() / MAX_WRITER_SHARE / (1 << 20));
        return "lens.archive.max-open-files " + maxOpenFiles + " does not fit lens.archive.max-buffer-memory "
                + (budgetBytes >> 20)
                + "MB: each open file's writer holds up to " + (largestWriterBytes() >> 10)
                + " KB whatever its rows, and the writers may take at most three quarters of the budget;"
                + " with this budget at most " + maxOpenFiles(budgetBytes) + " files, or raise max-buffer-memory to "
                + needed + "MB (and the heap with it)";
    }
}
