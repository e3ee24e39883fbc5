package io.nemolens.archive.spool;

/**
 * The damage kept aside in the spool's folder now: the {@code .corrupt} files that {@link Spool#open} wrote
 * (in this or an earlier start) and no operator has deleted yet. Deleting them acknowledges the loss.
 *
 * @param files kept-aside files
 * @param entries acknowledged entries they held (a file written before the spool named its seqs counts none)
 * @param bytes their bytes
 */
public record SpoolDamage(int files, long entries, long bytes) {

    /** No damage kept aside. */
    public static final SpoolDamage NONE = new SpoolDamage(0, 0, 0);
}
