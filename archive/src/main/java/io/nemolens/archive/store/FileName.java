package io.nemolens.archive.store;

import java.util.Objects;

/**
 * What a store names a finished file after, when the archive asks it for the name to publish it under
 * ({@link ArchiveStore#name}).
 *
 * @param local its local name, relative to the archive's root, with forward slashes:
 *     {@code <table>/date=YYYY-MM-DD/run_id=<run>/part-<time>-<instance>-<counter>.parquet}
 * @param instanceId the instance that wrote it
 * @param contentId what it holds (see {@link StagedFile#contentId()})
 */
public record FileName(String local, String instanceId, String contentId) {

    public FileName {
        Objects.requireNonNull(local, "local");
        Objects.requireNonNull(instanceId, "instanceId");
        Objects.requireNonNull(contentId, "contentId");
    }

    /**
     * The local name with its counter replaced by the content id, and then by {@code -<variant>} when it is not
     * 0: {@code part-<time>-<instance>-<content id>[-<variant>].parquet}. The name an object store gives a file,
     * so that a file written again after a crash goes under the name of the first attempt.
     */
    public String byContent(int variant) {
        String marker = "-" + instanceId + "-";
        int at = local.lastIndexOf(marker);
        String stem = at < 0
                ? local.substring(0, local.length() - ".parquet".length())
                : local.substring(0, at + marker.length() - 1);
        return stem + "-" + contentId + (variant == 0 ? "" : "-" + variant) + ".parquet";
    }
}
