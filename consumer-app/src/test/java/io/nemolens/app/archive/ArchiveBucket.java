package io.nemolens.app.archive;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.decode.MessageIds;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.S3Server;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Stream;

/**
 * A bucket of the test's {@link S3Server} that the service's archive publishes to ({@code s3://<bucket>/<prefix>}),
 * and what the object-store tests check around it.
 *
 * @param server the store
 * @param name the bucket's name
 * @param prefix where the archive's keys go in the bucket
 */
record ArchiveBucket(S3Server server, String name, String prefix) {

    /** The smallest part size the store allows: files from this size on are uploaded in parts. */
    static final long PART_SIZE = 8L << 20;

    /**
     * Settings that make all the spans of {@code rows} one file, cut once it holds all of them, uncompressed:
     * well over one part, so it goes up in parts. One writer per partition: published at once, that many spans are
     * a hot rate, and a second lane would split them into two files that both wait for {@code max-age}.
     */
    static Map<String, Object> oneUncompressedFileOf(long rows) {
        return Map.of(
                "lens.archive.compression",
                "uncompressed",
                "lens.archive.max-rows",
                rows,
                "lens.archive.max-age",
                "10m",
                "lens.archive.writers-per-partition",
                1);
    }

    /** Publishes {@code messages} messages of {@code spansPerMessage} spans of one run; returns their ids. */
    static Set<String> publishSpans(ConsumerExtension lens, int messages, int spansPerMessage, String run)
            throws Exception {
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < messages; i++) {
            byte[] body = NemoLensRequests.spans(spansPerMessage, run, i, i).toByteArray();
            ids.add(MessageIds.of(body));
            lens.publish("otlp_spans", body);
        }
        return ids;
    }

    /** A new bucket with a random name on the server; the archive's keys go under {@code prefix}. */
    static ArchiveBucket create(S3Server server, String prefix) {
        byte[] random = new byte[6];
        ThreadLocalRandom.current().nextBytes(random);
        String name = "lens-it-" + HexFormat.of().formatHex(random);
        server.createBucket(name);
        return new ArchiveBucket(server, name, prefix);
    }

    /** {@code s3://<bucket>/<prefix>}, as the archive names its store. */
    String uri() {
        return "s3://" + name + "/" + prefix;
    }

    /**
     * The service's {@code lens.archive.store.*} for this bucket, with the smallest multipart threshold and part
     * size (8MB), and {@code extra} on top.
     */
    Map<String, Object> properties(Map<String, ?> extra) {
        Map<String, Object> props = new LinkedHashMap<>(server.springProperties(uri()));
        props.put("lens.archive.store.multipart-threshold", "8MB");
        props.put("lens.archive.store.part-size", "8MB");
        props.putAll(extra);
        return props;
    }

    /** Where the archive's objects lie on the server's disk: what DuckDB reads, as the archive's root folder. */
    Path root() {
        return server.folder(name).resolve(prefix);
    }

    /** An object's file on the server's disk. */
    Path object(String key) {
        return server.folder(name).resolve(key);
    }

    /** The keys of the multipart uploads begun in the bucket and neither completed nor aborted. */
    List<String> incompleteUploads() {
        return server.incompleteUploads(name);
    }

    /**
     * The archive's local folder holds no Parquet file, not even a temporary one: only the spool's folder and
     * the instance registry hold files; the partition folders are empty.
     */
    static void assertNoParquetLeftIn(Path archive) throws IOException {
        Path spool = archive.resolve(".spool");
        Path instances = archive.resolve(".instances");
        try (Stream<Path> paths = Files.walk(archive)) {
            List<Path> files = paths.filter(Files::isRegularFile).toList();
            assertThat(files)
                    .as("local files of the archive at %s", archive)
                    .noneMatch(p -> p.getFileName().toString().contains(".parquet"))
                    .allMatch(p -> p.startsWith(spool) || p.startsWith(instances));
        }
    }
}
