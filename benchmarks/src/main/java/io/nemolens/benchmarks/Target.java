package io.nemolens.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Where the bench's consumer puts its committed files: what {@code --targets} lists. */
enum Target {
    /** The archive's local folder (the default): a file is committed by renaming it into place. */
    LOCAL("local"),
    /** An S3-compatible object store (s3proxy in the bench's JVM): a file is committed once uploaded. */
    S3("s3"),
    /** The same object store, and the claim registry on PostgreSQL: every message id claimed before its rows are committed. */
    S3_CLAIMS("s3+claims"),
    /** The local folder, and every committed file appended to its Iceberg table (a JDBC catalog on PostgreSQL). */
    LOCAL_TABLES("local+tables"),
    /** The object store, and every committed file appended to its Iceberg table (the same catalog). */
    S3_TABLES("s3+tables"),
    /** The local folder with the run watch off ({@code lens.run-watch.enabled=false}): what the watch costs. */
    LOCAL_NO_WATCH("local-no-watch");

    private final String label;

    Target(String label) {
        this.label = label;
    }

    /** {@code local}, {@code s3}, {@code s3+claims}, {@code local+tables}, {@code s3+tables} or {@code local-no-watch}, as {@code --targets} spells it. */
    String label() {
        return label;
    }

    boolean objectStore() {
        return this == S3 || this == S3_CLAIMS || this == S3_TABLES;
    }

    /** Whether committed files are appended to Iceberg tables. */
    boolean tables() {
        return this == LOCAL_TABLES || this == S3_TABLES;
    }

    boolean claims() {
        return this == S3_CLAIMS;
    }

    /** Whether the run watch is on (it is by default). */
    boolean runWatch() {
        return this != LOCAL_NO_WATCH;
    }

    /** {@code local,s3,s3+claims}: the targets in the order given, each once. */
    static List<Target> parse(String list) {
        List<Target> out = new ArrayList<>();
        for (String item : list.split(",", -1)) {
            String label = item.trim().toLowerCase(Locale.ROOT);
            Target found = null;
            for (Target t : values()) {
                if (t.label.equals(label)) {
                    found = t;
                }
            }
            if (found == null) {
                throw new IllegalArgumentException("--targets: unknown target '" + item
                        + "' (local, s3, s3+claims, local+tables, s3+tables, local-no-watch, separated by commas)");
            }
            if (!out.contains(found)) {
                out.add(found);
            }
        }
        return List.copyOf(out);
    }
}
