package io.nemolens.archive.spool;

import java.util.List;

/**
 * What {@link Spool#open} found in the folder and did to it.
 *
 * @param segments segment files kept
 * @param entries valid entries in them
 * @param bytes bytes in them
 * @param firstSeq the lowest seq found, or -1 when there is none
 * @param lastSeq the highest seq found, or -1 when there is none
 * @param tornBytesCut bytes cut from the end of the last segment: appends that were never durable
 * @param corrupt one description per corrupt segment (segment, offset, bytes lost, reason): acknowledged
 *     data that could not be read back; its bytes are kept in a {@code .corrupt} file
 */
public record Recovery(
        int segments, long entries, long bytes, long firstSeq, long lastSeq, long tornBytesCut, List<String> corrupt) {

    public Recovery {
        corrupt = List.copyOf(corrupt);
    }
}
