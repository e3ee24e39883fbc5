package io.nemolens.archive.parquet;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A partition: one table, one date, one run. {@code runId} is the id as it came (what the file's
 * {@code run_id} column holds), {@code run} its folder value; equal folder values are one partition.
 *
 * <h2>The folder value of a run id</h2>
 * One rule, so that every file system holds the folder and Hive-partitioning readers get the id back from it:
 * <ul>
 *   <li>no run id (absent or empty, NULL in the {@code run_id} column): {@value #NULL_FOLDER}, the
 *       folder value DuckDB, Spark and Hive read as NULL;</li>
 *   <li>otherwise the id's UTF-8 bytes, each byte outside {@code [A-Za-z0-9._-]} as {@code %XX} (upper-case
 *       hex), and so are a leading {@code .} or {@code _} (no value starts like a hidden name or reads as
 *       {@value #NULL_FOLDER}), a trailing {@code .} (Windows drops it) and the first letter of
 *       {@code null} in any case (DuckDB reads a folder value {@code NULL} as NULL). The folder name is ASCII
 *       whatever the id and the JVM's file name encoding, and readers that URL-decode folder values
 *       (DuckDB, pyarrow) get the id back exactly;</li>
 *   <li>an escaped value longer than {@value #MAX_RUN_BYTES} bytes is cut after its last whole character
 *       that fits {@value #PREFIX_BYTES} bytes and followed by {@code ~} and the first 16 hex digits of the
 *       SHA-256 of the id's UTF-8 bytes: a folder name ({@code run_id=} and the value) is at most 127 bytes,
 *       half of what file systems hold. Such a folder does not give the id back: the file's {@code run_id}
 *       column holds it.</li>
 * </ul>
 * Different ids get different folders: the escaping is reversible, an escaped value never holds {@code ~}
 * ({@code %7E}), a cut one holds one. An unpaired surrogate (which UTF-8 cannot encode) counts as {@code ?},
 * as in the {@code run_id} column.
 */
public record PartitionKey(String table, String date, String run, String runId) {

    /** The folder value of a partition without a run id: what Hive-partitioning readers read as NULL. */
    public static final String NULL_FOLDER = "__HIVE_DEFAULT_PARTITION__";

    /** The longest folder value: {@code run_id=} and the value make at most 127 bytes. */
    public static final int MAX_RUN_BYTES = 120;

    /** Hex digits of the SHA-256 at the end of a cut value. */
    private static final int HASH_DIGITS = 16;

    /** The longest escaped prefix a cut value keeps, before {@code ~} and the hash. */
    static final int PREFIX_BYTES = MAX_RUN_BYTES - 1 - HASH_DIGITS;

    /** The partition of a table's rows of one date and run id. */
    public static PartitionKey of(String table, String date, String runId) {
        return new PartitionKey(table, date, runFolder(runId), runId);
    }

    /** The partition's folder under the archive's root. */
    public Path directory(Path root) {
        return root.resolve(table).resolve("date=" + date).resolve("run_id=" + run);
    }

    /** The folder relative to the root, with forward slashes: how the manifest names it. */
    public String relative() {
        return relative(run);
    }

    /**
     * The folder the archive gave this partition before the rule above ({@code unknown} for no run id, every
     * UTF-16 unit escaped on its own, no limit): the manifest names files committed under it before an
     * upgrade.
     */
    public String formerRelative() {
        return relative(formerRunFolder(runId));
    }

    private String relative(String runFolder) {
        return table + "/date=" + date + "/run_id=" + runFolder;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PartitionKey k && table.equals(k.table) && date.equals(k.date) && run.equals(k.run);
    }

    @Override
    public int hashCode() {
        return (table.hashCode() * 31 + date.hashCode()) * 31 + run.hashCode();
    }

    /** The run id as a folder value, by the rule of this class's description. */
    static String runFolder(String runId) {
        if (runId.isEmpty()) {
            return NULL_FOLDER;
        }
        byte[] utf8 = runId.getBytes(StandardCharsets.UTF_8);
        boolean nullWord = runId.equalsIgnoreCase("null");
        StringBuilder folder = new StringBuilder(utf8.length + 8);
        int cut = 0; // the escaped length before the last character that starts within the prefix
        for (int i = 0; i < utf8.length; i++) {
            int b = utf8[i] & 0xFF;
            if ((b & 0xC0) != 0x80 && folder.length() <= PREFIX_BYTES) {
                cut = folder.length(); // a character starts here (not a UTF-8 continuation byte)
            }
            boolean kept = (b >= 'a' && b <= 'z')
                    || (b >= 'A' && b <= 'Z')
                    || (b >= '0' && b <= '9')
                    || b == '-'
                    || (b == '_' && i > 0)
                    || (b == '.' && i > 0 && i < utf8.length - 1);
            if (kept && !(nullWord && i == 0)) {
                folder.append((char) b);
            } else {
                escape(folder, b);
            }
        }
        if (folder.length() <= MAX_RUN_BYTES) {
            return folder.toString();
        }
        folder.setLength(cut);
        return folder.append('~').append(sha256Prefix(utf8)).toString();
    }

    private static void escape(StringBuilder folder, int b) {
        folder.append('%').append(Character.toUpperCase(Character.forDigit(b >> 4, 16)));
        folder.append(Character.toUpperCase(Character.forDigit(b & 0xF, 16)));
    }

    private static String sha256Prefix(byte[] bytes) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(bytes);
            return HexFormat.of().formatHex(digest, 0, HASH_DIGITS / 2);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }

    /** The folder value of the rule before: {@code unknown} when absent, UTF-16 units outside [A-Za-z0-9._-] escaped. */
    static String formerRunFolder(String runId) {
        if (runId.isEmpty()) {
            return "unknown";
        }
        StringBuilder folder = new StringBuilder(runId.length());
        for (int i = 0; i < runId.length(); i++) {
            char c = runId.charAt(i);
            if ((c >= 'a' && c <= 'z')
                    || (c >= 'A' && c <= 'Z')
                    || (c >= '0' && c <= '9')
                    || c == '.'
                    || c == '_'
                    || c == '-') {
                folder.append(c);
            } else {
                for (byte b : String.valueOf(c).getBytes(StandardCharsets.UTF_8)) {
                    escape(folder, b & 0xFF);
                }
            }
        }
        String value = folder.toString();
        return value.equals(".") || value.equals("..") ? value.replace(".", "%2E") : value;
    }
}
