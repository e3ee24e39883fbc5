package io.nemolens.archive.s3;

import java.util.regex.Pattern;

/**
 * Where an archive's files go in object storage: a bucket, and a prefix that every file's key starts with.
 *
 * @param bucket the bucket's name (3 to 63 lower-case letters, digits, dots and hyphens)
 * @param prefix the folder of the archive in the bucket, without leading or trailing slash; empty for the
 *     bucket's root
 */
public record S3Location(String bucket, String prefix) {

    private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]");
    private static final String SCHEME = "s3://";

    public S3Location {
        if (!BUCKET.matcher(bucket).matches()) {
            throw new IllegalArgumentException("'" + bucket + "' is not a bucket name (3 to 63 lower-case letters,"
                    + " digits, dots and hyphens, beginning and ending with a letter or a digit)");
        }
        if (!prefix.isEmpty() && (prefix.startsWith("/") || prefix.endsWith("/") || prefix.contains("//"))) {
            throw new IllegalArgumentException(
                    "'" + prefix + "' is not a key prefix (no leading, trailing or double slash)");
        }
    }

    /**
     * Parses {@code s3://bucket} or {@code s3://bucket/prefix} (one trailing slash is allowed).
     *
     * @throws IllegalArgumentException saying what is wrong with it
     */
    public static S3Location parse(String uri) {
        if (!uri.startsWith(SCHEME)) {
            throw new IllegalArgumentException("'" + uri + "' is not s3://bucket or s3://bucket/prefix");
        }
        String path = uri.substring(SCHEME.length());
        int slash = path.indexOf('/');
        if (slash < 0) {
            return new S3Location(path, "");
        }
        String prefix = path.substring(slash + 1);
        return new S3Location(path.substring(0, slash), prefix.endsWith("/") ? strip(prefix) : prefix);
    }

    private static String strip(String prefix) {
        return prefix.substring(0, prefix.length() - 1);
    }

    /** The key of an archive file's name ({@code prefix/name}, or the name itself without a prefix). */
    public String key(String name) {
        if (name.isEmpty() || name.startsWith("/")) {
            throw new IllegalArgumentException("'" + name + "' is not a file name relative to the archive's root");
        }
        return prefix.isEmpty() ? name : prefix + "/" + name;
    }

    /** What every key of this location starts with: {@code prefix/}, or nothing. */
    public String keyPrefix() {
        return prefix.isEmpty() ? "" : prefix + "/";
    }

    /** A key of this bucket as {@code s3://bucket/key}, for messages. */
    public String uri(String key) {
        return SCHEME + bucket + "/" + key;
    }

    /** {@code s3://bucket/prefix}, or {@code s3://bucket}. */
    @Override
    public String toString() {
        return SCHEME + bucket + (prefix.isEmpty() ? "" : "/" + prefix);
    }
}
