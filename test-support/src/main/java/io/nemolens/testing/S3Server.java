package io.nemolens.testing;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.blobstore.domain.MultipartUpload;
import org.gaul.s3proxy.blobstore.options.CreateContainerOptions;
import org.gaul.s3proxy.nio2blob.FilesystemNio2BlobStore;
import org.jspecify.annotations.Nullable;

/**
 * A real S3 server in the test's JVM: s3proxy 4.0.0 over its filesystem store in a folder, on a free port of
 * the loopback address, with fixed credentials ({@link #ACCESS_KEY_ID}, {@link #SECRET_ACCESS_KEY}, signature
 * V2 or V4) and unknown headers ignored (as the AWS SDK sends some it does not know). Objects lie on disk as
 * {@code folder()/<bucket>/<key>}, so DuckDB can read them back. It can be stopped (connections refused, as an
 * unreachable store) and started again on the same port, with its objects.
 *
 * <p>The module that uses it declares {@code org.gaul:s3proxy} in test scope (test-support has it as optional),
 * and {@code com.fasterxml.jackson.core:jackson-annotations} at {@code ${s3proxy-jackson-annotations.version}}
 * in test scope, which s3proxy's Jackson 3 needs.
 *
 * <pre>
 * try (S3Server s3 = S3Server.inTempFolder()) {
 *     s3.createBucket("archive");
 *     ... S3ClientSettings.endpoint(s3.endpoint(), S3Server.ACCESS_KEY_ID, S3Server.SECRET_ACCESS_KEY) ...
 *     s3.stop(); ... s3.start();
 * }
 * </pre>
 */
public final class S3Server implements AutoCloseable {

    public static final String ACCESS_KEY_ID = "lens-test";
    public static final String SECRET_ACCESS_KEY = "lens-test-secret";
    public static final String REGION = "us-east-1";

    private static final Duration START_TIMEOUT = Duration.ofSeconds(10);

    private final Path folder;
    private final boolean ownsFolder;
    private final BlobStore store;
    private @Nullable S3Proxy proxy;
    private int port;

    /** A server (not started) over a folder of the caller's, which it keeps. */
    public S3Server(Path folder) {
        this(folder, false);
    }

    private S3Server(Path folder, boolean ownsFolder) {
        this.folder = folder.toAbsolutePath();
        this.ownsFolder = ownsFolder;
        this.store = new FilesystemNio2BlobStore(this.folder.toString());
    }

    /** A started server over a new temporary folder, which {@link #close()} deletes. */
    public static S3Server inTempFolder() throws IOException {
        return new S3Server(Files.createTempDirectory("lens-s3-"), true).start();
    }

    /** Starts serving: on a free port the first time, on the same port afterwards. Returns once it listens. */
    public synchronized S3Server start() {
        if (proxy != null) {
            return this;
        }
        S3Proxy started = S3Proxy.builder()
                .blobStore(store)
                .endpoint(URI.create("http://127.0.0.1:" + port))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY_ID, SECRET_ACCESS_KEY)
                .ignoreUnknownHeaders(true)
                .build();
        try {
            started.start();
            long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
            while (!"STARTED".equals(started.getState())) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            "s3proxy not started after " + START_TIMEOUT + ": " + started.getState());
                }
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            }
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("s3proxy did not start on port " + port, e);
        }
        port = started.getPort();
        proxy = started;
        return this;
    }

    /** Stops serving: connections are cut and refused, as from a store that is down. Objects stay. */
    public synchronized void stop() {
        S3Proxy running = proxy;
        proxy = null;
        if (running != null) {
            try {
                running.stop();
            } catch (Exception e) {
                throw new IllegalStateException("s3proxy did not stop", e);
            }
        }
    }

    /** Whether it serves now. */
    public synchronized boolean running() {
        return proxy != null;
    }

    /** {@code http://127.0.0.1:<port>}; path-style access. */
    public URI endpoint() {
        if (port == 0) {
            throw new IllegalStateException("never started");
        }
        return URI.create("http://127.0.0.1:" + port);
    }

    /** The store's root: a bucket is a folder in it, an object a file under its key. */
    public Path folder() {
        return folder;
    }

    /** Where a bucket's objects lie: {@code folder(bucket).resolve(key)}. */
    public Path folder(String bucket) {
        return folder.resolve(bucket);
    }

    /** Creates a bucket (whether the server runs or not). */
    public void createBucket(String name) {
        store.createContainer(name, CreateContainerOptions.NONE);
    }

    /** The keys of the multipart uploads begun in a bucket and neither completed nor aborted, sorted. */
    public List<String> incompleteUploads(String bucket) {
        return store.listMultipartUploads(bucket).stream()
                .map(MultipartUpload::blobName)
                .sorted()
                .toList();
    }

    /**
     * The {@code lens.archive.store.*} properties that point an application at this server and a location of
     * it ({@code s3://bucket/prefix}).
     */
    public Map<String, Object> springProperties(String uri) {
        return Map.of(
                "lens.archive.store.uri", uri,
                "lens.archive.store.endpoint", endpoint().toString(),
                "lens.archive.store.region", REGION,
                "lens.archive.store.path-style-access", "true",
                "lens.archive.store.access-key-id", ACCESS_KEY_ID,
                "lens.archive.store.secret-access-key", SECRET_ACCESS_KEY);
    }

    /** Stops serving, and deletes the folder if the server made it. */
    @Override
    public void close() {
        stop();
        store.close();
        if (ownsFolder) {
            Folders.deleteTreeOnClose(folder);
        }
    }

    @Override
    public String toString() {
        return "S3Server[" + (port == 0 ? "never started" : endpoint()) + (running() ? "" : ", stopped") + ", " + folder
                + "]";
    }
}
