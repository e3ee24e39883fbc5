package io.nemolens.archive.iceberg;

import io.nemolens.archive.s3.S3ClientSettings;
import io.nemolens.archive.s3.S3Location;
import io.nemolens.archive.s3.S3Store;
import io.nemolens.archive.store.ArchiveStore;
import io.nemolens.archive.store.LocalFolder;
import io.nemolens.testing.S3Server;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.jspecify.annotations.Nullable;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * Where a test's archive and tables are: the archive's folder, or a bucket of a fresh s3proxy 4.0.0 in this JVM
 * (the archive's S3 store, and Iceberg's S3FileIO on the same client). {@link #files()} is where the committed files
 * are on local disk either way, for DuckDB.
 */
final class Storage implements AutoCloseable {

    /** The kinds of storage the tests run on. */
    enum Kind {
        FOLDER,
        S3
    }

    private final Kind kind;
    private final Path archive;
    private final @Nullable S3Server server;
    private final @Nullable S3Client client;
    private final String bucket;

    private Storage(Kind kind, Path archive, @Nullable S3Server server, @Nullable S3Client client, String bucket) {
        this.kind = kind;
        this.archive = archive;
        this.server = server;
        this.client = client;
        this.bucket = bucket;
    }

    /** Storage of this kind; the archive's own folder (spool, files being written) is {@code archive}. */
    static Storage create(Kind kind, Path archive) throws IOException {
        if (kind == Kind.FOLDER) {
            return new Storage(kind, archive, null, null, "");
        }
        S3Server server = S3Server.inTempFolder().start();
        String bucket = "lens-" + UUID.randomUUID().toString().substring(0, 8);
        server.createBucket(bucket);
        S3Client client = S3ClientSettings.endpoint(
                        server.endpoint(), S3Server.ACCESS_KEY_ID, S3Server.SECRET_ACCESS_KEY)
                .newClient();
        return new Storage(kind, archive, server, client, bucket);
    }

    Kind kind() {
        return kind;
    }

    /** Where the committed files are: the folder, or {@code s3://bucket/archive}. */
    String root() {
        return kind == Kind.FOLDER ? archive.toAbsolutePath().toString() : "s3://" + bucket + "/archive";
    }

    /** The archive's store of committed files. */
    ArchiveStore store() {
        return kind == Kind.FOLDER
                ? new LocalFolder(archive)
                : new S3Store(s3(), S3Location.parse(root()), 16L << 20, 16L << 20);
    }

    /** The tables' view of it. */
    TableStorage tables() {
        if (kind == Kind.FOLDER) {
            return new TableStorage(new LocalFileIO(), root());
        }
        S3Client s3 = s3();
        S3FileIO io = new S3FileIO(() -> s3);
        io.initialize(Map.of());
        return new TableStorage(io, root());
    }

    /** Where the committed files are on local disk (s3proxy keeps a bucket's objects in a folder). */
    Path files() {
        return kind == Kind.FOLDER
                ? archive
                : java.util.Objects.requireNonNull(server, "server")
                        .folder(bucket)
                        .resolve("archive");
    }

    private S3Client s3() {
        return java.util.Objects.requireNonNull(client, "client");
    }

    @Override
    public void close() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }
}
