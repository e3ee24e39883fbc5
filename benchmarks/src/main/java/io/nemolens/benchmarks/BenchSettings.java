package io.nemolens.benchmarks;

import io.nemolens.generator.CollectorJsonWriter;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.handlers.Encoding;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What one invocation of the end-to-end bench measures: its options (see {@link EndToEndBenchmark}), and the
 * messages it sends.
 *
 * @param encodings in the order they are measured
 */
record BenchSettings(
        int messages,
        int runs,
        int warmup,
        int warmupRounds,
        int spans,
        int prefetch,
        int concurrency,
        int passes,
        String amqpUri,
        List<Target> targets,
        String claimsUrl,
        String claimsUser,
        boolean prototype,
        List<Encoding> encodings) {

    /** The settings {@code args} give, each option's default where it is not given. */
    static BenchSettings parse(String[] args) {
        Map<String, String> opts = options(args);
        BenchSettings settings = new BenchSettings(
                Integer.parseInt(opts.getOrDefault("messages", "300")),
                Integer.parseInt(opts.getOrDefault("runs", "16")),
                Integer.parseInt(opts.getOrDefault("warmup", "100")),
                Integer.parseInt(opts.getOrDefault("warmup-rounds", "30")),
                Integer.parseInt(opts.getOrDefault("spans", "1024")),
                Integer.parseInt(opts.getOrDefault("prefetch", "20")),
                Integer.parseInt(opts.getOrDefault("concurrency", "2")),
                Integer.parseInt(opts.getOrDefault("passes", "2")),
                opts.getOrDefault("amqp-uri", "amqp://guest:guest@127.0.0.1:5672/%2F"),
                Target.parse(opts.getOrDefault("targets", "local")),
                opts.getOrDefault("claims-url", "jdbc:postgresql://127.0.0.1:5432/test"),
                opts.getOrDefault("claims-user", "postgres"),
                Boolean.parseBoolean(opts.getOrDefault("prototype", "true")),
                Arrays.stream(opts.getOrDefault("encodings", "protobuf,json").split(",", -1))
                        .map(e -> Encoding.valueOf(e.trim().toUpperCase(Locale.ROOT)))
                        .toList());
        if (settings.runs() < 1 || settings.messages() < 1 || settings.passes() < 1) {
            throw new IllegalArgumentException("--messages, --runs and --passes must be at least 1");
        }
        return settings;
    }

    /** The same settings with messages from {@code runs} interleaved runs. */
    BenchSettings withRuns(int runs) {
        return new BenchSettings(
                messages,
                runs,
                warmup,
                warmupRounds,
                spans,
                prefetch,
                concurrency,
                passes,
                amqpUri,
                targets,
                claimsUrl,
                claimsUser,
                prototype,
                encodings);
    }

    /** The run id of message {@code i}: {@code bench-run-07} for run 7. */
    static String runId(int runs, int i) {
        return String.format(Locale.ROOT, "bench-run-%02d", i % runs);
    }

    /** Message {@code i} in {@code encoding}: {@link #spans()} spans of run {@link #runId(int, int)}. */
    byte[] body(Encoding encoding, int i) {
        var request = NemoLensRequests.spans(spans, runId(runs, i), (i / runs) % 8, i);
        return encoding == Encoding.JSON ? CollectorJsonWriter.write(request) : request.toByteArray();
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> opts = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException(
                        "usage: EndToEndBenchmark [--messages N] [--runs N] [--warmup N] [--warmup-rounds N]"
                                + " [--spans N] [--prefetch N] [--concurrency N] [--passes N] [--encodings protobuf,json]"
                                + " [--amqp-uri URI] [--targets local,s3,s3+claims] [--claims-url JDBC-URL]"
                                + " [--claims-user USER] [--prototype true|false]");
            }
            opts.put(args[i].substring(2), args[++i]);
        }
        return opts;
    }
}
