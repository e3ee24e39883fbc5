package io.nemolens.archive.s3;

import io.nemolens.testing.S3Server;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * What the store's integration tests share: one S3 server (s3proxy in this JVM) for the class, a raw client to
 * look at it, and a new bucket and folder of local files for each test.
 */
abstract class S3ServerTestCase {

    static final long MIB = 1 << 20;

    static S3Server server;
    static S3Client raw;

    @TempDir
    Path temp;

    TestFiles files;
    String bucket;

    @BeforeAll
    static void startServer() throws IOException {
        server = S3Server.inTempFolder();
        raw = settings().newClient();
    }

    @AfterAll
    static void stopServer() {
        raw.close();
        server.close();
    }

    static S3ClientSettings settings() {
        return S3ClientSettings.endpoint(server.endpoint(), S3Server.ACCESS_KEY_ID, S3Server.SECRET_ACCESS_KEY);
    }

    @BeforeEach
    void newBucket() {
        files = new TestFiles(temp);
        bucket = TestFiles.bucket();
        server.createBucket(bucket);
    }
}
