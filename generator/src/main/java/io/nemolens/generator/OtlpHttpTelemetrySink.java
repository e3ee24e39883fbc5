package io.nemolens.generator;

import io.nemolens.handlers.Encoding;
import io.nemolens.handlers.Signal;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Sends each batch to a collector's OTLP/HTTP receiver as a training job's SDK does: {@code POST} to
 * {@code /v1/traces}, {@code /v1/metrics} or {@code /v1/logs} with {@code Content-Type:
 * application/x-protobuf} (or {@code application/json}), one request at a time. Any status but 2xx fails.
 */
final class OtlpHttpTelemetrySink implements TelemetrySink {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final HttpClient client;
    private final URI base;
    private final String contentType;
    private long sent;
    private long accepted;

    OtlpHttpTelemetrySink(URI endpoint, Encoding encoding) {
        this.client =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        String text = endpoint.toString();
        this.base = URI.create(text.endsWith("/") ? text.substring(0, text.length() - 1) : text);
        this.contentType = encoding == Encoding.JSON ? "application/json" : "application/x-protobuf";
    }

    /** The path of a signal under the base URL. */
    static String path(Signal signal) {
        return switch (signal) {
            case SPANS -> "/v1/traces";
            case METRICS -> "/v1/metrics";
            case LOGS -> "/v1/logs";
        };
    }

    @Override
    public void send(Signal signal, byte[] body) throws Exception {
        sent++;
        URI uri = URI.create(base + path(signal));
        HttpRequest request = HttpRequest.newBuilder(uri)
                .timeout(TIMEOUT)
                .header("Content-Type", contentType)
                .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                .build();
        HttpResponse<byte[]> response = client.send(request, HttpResponse.BodyHandlers.ofByteArray());
        if (response.statusCode() / 100 != 2) {
            String text = new String(response.body(), StandardCharsets.UTF_8);
            throw new IOException("POST " + uri + " answered " + response.statusCode()
                    + (text.isBlank()
                            ? ""
                            : ": "
                                    + text.substring(0, Math.min(200, text.length()))
                                            .strip()));
        }
        accepted++;
    }

    @Override
    public void flush() {
        // every send waited for its response
    }

    @Override
    public String problems() {
        return "";
    }

    @Override
    public String confirmation() {
        return "accepted " + accepted + " of " + sent + " messages by the collector";
    }

    @Override
    public String describe() {
        return "OTLP/HTTP " + base + " (" + contentType + ")";
    }

    @Override
    public void close() {
        // HttpClient is closeable only from Java 21 on; its threads are daemons
    }
}
