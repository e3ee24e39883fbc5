/**
 * The archive's memory of the messages it already took: a {@link io.nemolens.archive.dedup.DedupIndex} of
 * message ids kept on disk for a window (24 hours by default), so that a message delivered again (a lost
 * acknowledgement, a consumer crash, a publisher retry) is acknowledged without being archived twice.
 *
 * <p>On disk, one file per UTC hour in one folder, named after the hour ({@code yyyyMMdd'T'HH}):
 *
 * <ul>
 *   <li>{@code <hour>.log}: the hour that is still being written, an append-only sequence of 16-byte
 *       records (the id's high then low 64 bits, big-endian), forced to disk on every {@code record}. A
 *       torn last record (a crash in mid-write) is ignored and written over.
 *   <li>{@code <hour>.sorted}: a closed hour, the same records sorted ascending as unsigned 128-bit
 *       numbers (the order of the ids' hex text), duplicates possible. Written through
 *       {@code <hour>.sorted.tmp} (forced, renamed atomically, folder forced) before its log is deleted;
 *       where both exist, the sorted file wins.
 *   <li>{@code lock}: held by the one process that has the folder open.
 * </ul>
 *
 * <p>The current hour's ids are also held in memory (a primitive hash set); closed hours are looked up
 * by interpolation search through read-only memory maps, so the heap holds at most about one hour of ids.
 */
@NullMarked
package io.nemolens.archive.dedup;

import org.jspecify.annotations.NullMarked;
