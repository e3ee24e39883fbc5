package io.nemolens.archive.parquet;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A partition: one table, one date, one run. {@code runId} is the id as it came, {@code run} its folder
 * name; equal folder names are one partition.
 */
public record PartitionKey(String table, String date, String run, String runId) {

    static PartitionKey of(String table, String date, String runId) {
        return new PartitionKey(table, date, runFolder(runId), runId);
    }

    /** The partition's folder under the archive's root. */
    public Path directory(Path root) {
        return root.resolve(table).resolve("date=" + date).resolve("run_id=" + run);
    }

    /** The folder relative to the root, with forward slashes: how the manifest names it. */
    public String relative() {
        return table + "/date=" + date + "/run_id=" + run;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PartitionKey k && table.equals(k.table) && date.equals(k.date) && run.equals(k.run);
    }

    @Override
    public int hashCode() {
        return (table.hashCode() * 31 + date.hashCode()) * 31 + run.hashCode();
    }

    /** The run id as a folder name: {@code unknown} when absent; characters outside [A-Za-z0-9._-] %-escaped. */
    static String runFolder(String runId) {
        if (runId.isEmpty()) {
            return "unknown";
        }
        StringBuilder sb = null;
        for (int i = 0; i < runId.length(); i++) {
            char c = runId.charAt(i);
            boolean safe = (c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '.'
                    || c == '_'
                    || c == '-';
            if (!safe && sb == null) {
                sb = new StringBuilder(runId.substring(0, i));
            }
            if (sb != null) {
                if (safe) {
                    sb.append(c);
                } else {
                    for (byte b : String.valueOf(c).getBytes(StandardCharsets.UTF_8)) {
                        sb.append('%').append(String.format("%02X", b & 0xFF));
                    }
                }
            }
        }
        String folder = sb == null ? runId : sb.toString();
        return folder.equals(".") || folder.equals("..") ? folder.replace(".", "%2E") : folder;
    }
}
