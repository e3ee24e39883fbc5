package io.nemolens.archive.spool;

import java.nio.file.Path;

/**
 * Entries {@code firstSeq} to {@code lastSeq} of one segment file: the first starts at {@code offset}, and
 * valid entries end at {@code end}.
 */
record SegmentRange(Path path, long firstSeq, long lastSeq, long offset, long end) {}
