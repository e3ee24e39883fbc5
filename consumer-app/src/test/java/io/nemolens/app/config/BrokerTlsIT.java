package io.nemolens.app.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.app.poison.BreakableHandlers;
import io.nemolens.app.testing.Service;
import io.nemolens.app.testing.SmallRequests;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.RunningConsumer;
import io.nemolens.testing.TestBroker;
import java.io.FileInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;

/**
 * The consumer over AMQPS, configured exactly as the README's TLS example: a TLS listener is started
 * on the test broker for this test (no restart), with a certificate made here by {@code keytool}; the
 * app trusts it through an SSL bundle and verifies the host name.
 */
class BrokerTlsIT {

    @RegisterExtension
    final ConsumerExtension lens = Service.extension(BreakableHandlers.class).manualStart();

    private Path dir;
    private int tlsPort = -1;

    @AfterEach
    void stop() throws Exception {
        lens.stop(); // the consumer goes before the broker's TLS listener
        if (tlsPort > 0) {
            TestBroker.get().stopTlsListener(tlsPort);
        }
        if (dir != null) {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    void consumesOverTlsWithTheBrokerCertificateTrustedThroughAnSslBundle() throws Exception {
        // in /tmp, readable by the broker's own user
        dir = Files.createTempDirectory(
                "lens-tls-", PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        Path certificate = dir.resolve("broker-cert.pem");
        Path key = dir.resolve("broker-key.pem");
        selfSignedCertificate(certificate, key);
        tlsPort = TestBroker.get().startTlsListener(certificate, key);

        Map<String, Object> props = new HashMap<>();
        props.put("spring.rabbitmq.host", "localhost");
        props.put("spring.rabbitmq.port", tlsPort);
        props.put("spring.rabbitmq.ssl.enabled", "true");
        props.put("spring.rabbitmq.ssl.bundle", "lens-broker");
        props.put("spring.rabbitmq.ssl.verify-hostname", "true");
        props.put("spring.ssl.bundle.pem.lens-broker.truststore.certificate", "file:" + certificate);
        RunningConsumer consumer = lens.start(props);

        assertThat(consumer.bean(CachingConnectionFactory.class)
                        .getRabbitConnectionFactory()
                        .isSSL())
                .isTrue();
        assertThat(consumer.bean(CachingConnectionFactory.class).getPort()).isEqualTo(tlsPort);
        lens.publish("otlp_spans", SmallRequests.spans("run-tls", "over-tls"));
        BreakableHandlers.State state = consumer.bean(BreakableHandlers.State.class);
        await().atMost(Duration.ofSeconds(20)).until(() -> state.handled.contains("over-tls"));
        HttpResponse<String> health = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(
                                        "http://127.0.0.1:" + consumer.port() + "/actuator/health/readiness"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(health.statusCode()).isEqualTo(200);
    }

    /** A self-signed certificate for localhost and 127.0.0.1, made with the JDK's keytool, written as PEM. */
    private void selfSignedCertificate(Path certificate, Path key) throws Exception {
        Path store = dir.resolve("broker.p12");
        String keytool =
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        Process p = new ProcessBuilder(List.of(
                        keytool,
                        "-genkeypair",
                        "-alias",
                        "broker",
                        "-keyalg",
                        "RSA",
                        "-keysize",
                        "2048",
                        "-dname",
                        "CN=localhost",
                        "-ext",
                        "san=dns:localhost,ip:127.0.0.1",
                        "-validity",
                        "2",
                        "-storetype",
                        "PKCS12",
                        "-keystore",
                        store.toString(),
                        "-storepass",
                        "changeit"))
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (FileInputStream in = new FileInputStream(store.toFile())) {
            ks.load(in, "changeit".toCharArray());
        }
        Certificate cert = ks.getCertificate("broker");
        PrivateKey privateKey = (PrivateKey) ks.getKey("broker", "changeit".toCharArray());
        Files.writeString(certificate, pem("CERTIFICATE", cert.getEncoded()));
        Files.writeString(key, pem("PRIVATE KEY", privateKey.getEncoded()));
        for (Path f : List.of(certificate, key)) {
            Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-r--r--"));
        }
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                        .encodeToString(der) + "\n-----END " + type + "-----\n";
    }
}
