package io.nemolens.generator;

import io.nemolens.generator.TelemetryGenerator.Faults;
import io.nemolens.generator.TelemetryGenerator.Kind;
import io.nemolens.handlers.Encoding;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The options of the {@code generate} command, parsed from its arguments ({@code --name value} or
 * {@code --name=value}).
 *
 * @param target where to send: the exchange ({@code amqp}) or a collector's OTLP/HTTP receiver ({@code otlp-http})
 * @param encoding OTLP protobuf or OTLP/JSON (as the collector's {@code otlp_encoding} extension writes it)
 * @param kinds what to send, taking turns
 * @param count messages to send; 0 sends until the process is stopped
 * @param rate messages per second; 0 sends as fast as the target takes them
 * @param spansPerMessage spans per spans message
 * @param logsPerMessage log records per logs message
 * @param ranks training ranks (eight per host)
 * @param gpusPerHost GPUs per host in dcgm-exporter scrapes
 * @param runId the {@code nemo.run.id}
 * @param seed the random seed
 * @param exchange the exchange for {@code amqp}, or {@code null} for {@code lens.topology.exchange}
 * @param otlpEndpoint the collector's OTLP/HTTP base URL for {@code otlp-http}
 * @param inFlight unconfirmed AMQP messages at most (the collector's sending queue has 10 consumers)
 * @param retryFor how long the broker may stay away (after a lost connection) before the generator gives up
 * @param faults the stragglers to make: a slow rank, a GPU that throttles, a host with network errors
 */
public record GenerateOptions(
        Target target,
        Encoding encoding,
        List<Kind> kinds,
        long count,
        double rate,
        int spansPerMessage,
        int logsPerMessage,
        int ranks,
        int gpusPerHost,
        String runId,
        long seed,
        @Nullable String exchange,
        URI otlpEndpoint,
        int inFlight,
        java.time.Duration retryFor,
        Faults faults) {

    /** Where the generator sends. */
    public enum Target {
        /** Straight to the exchange, publishing as the collector's {@code rabbitmq} exporter does. */
        AMQP,
        /** To a collector's OTLP/HTTP receiver ({@code /v1/traces}, {@code /v1/metrics}, {@code /v1/logs}). */
        OTLP_HTTP
    }

    /** The usage text. */
    public static final String USAGE = """
            usage: java -jar lens-generator-exec.jar [OPTIONS]
              --target amqp|otlp-http        where to send (default amqp): the exchange, publishing like the
                                             collector's rabbitmq exporter, or a collector's OTLP/HTTP receiver
              --encoding protobuf|json       OTLP encoding (default protobuf)
              --signals LIST                 comma-separated, taking turns: spans,metrics,logs,gpu,node (default all)
              --count N                      messages to send (default 100); 0 = until stopped (needs --rate)
              --rate R                       messages per second (default 0 = as fast as possible)
              --spans-per-message N          spans per spans message (default 96)
              --logs-per-message N           log records per logs message (default 32)
              --ranks N                      training ranks, eight per host (default 8)
              --gpus-per-host N              GPUs in each dcgm-exporter scrape (default 8)
              --run-id ID                    nemo.run.id (default lens-generate-<start time>)
              --seed N                       random seed (default 42)
              --exchange NAME                exchange for amqp (default lens.topology.exchange)
              --otlp-endpoint URL            collector OTLP/HTTP base URL (default http://localhost:4318)
              --in-flight N                  unconfirmed AMQP messages at most (default 10)
              --retry-for SECONDS            after a lost broker connection, publish again (at-least-once) until
                                             confirmed, giving up when the broker stays away this long (default 60)
            Stragglers (ranks are global, 0 to --ranks - 1; rank N runs on GPU N % 8 of host dgx-a100-<N / 8>):
              --slow-rank N                  this rank's forward_backward and optimizer_step, so its train_step,
                                             take --slow-factor times longer from --slow-from on (default none)
              --slow-factor F                how much longer the slow rank's steps take, above 1 (default 1.3)
              --slow-from I                  the slow rank's first slow iteration, from 1 (default 50)
              --throttled-rank N             this rank's GPU throttles in every dcgm-exporter scrape: hot, clocked
                                             down, DCGM_FI_DEV_CLOCK_THROTTLE_REASONS 96 (HW + SW thermal slowdown);
                                             every GPU then reports that gauge, 0 when healthy (default none)
              --flaky-network-rank N         this rank's host has TCP retransmits and InfiniBand receive and
                                             symbol errors in every node-exporter scrape (default none)
            Spring properties work as for the consumer, as --name=value or environment variables:
            the broker from spring.rabbitmq.* (e.g. --spring.rabbitmq.host=rabbit or SPRING_RABBITMQ_HOST),
            the topology from lens.topology.* (e.g. --lens.topology.exchange=NAME).""";

    private static final Set<String> NAMES = Set.of(
            "target",
            "encoding",
            "signals",
            "count",
            "rate",
            "spans-per-message",
            "logs-per-message",
            "ranks",
            "gpus-per-host",
            "run-id",
            "seed",
            "exchange",
            "otlp-endpoint",
            "in-flight",
            "retry-for",
            "slow-rank",
            "slow-factor",
            "slow-from",
            "throttled-rank",
            "flaky-network-rank");

    /**
     * Parses the arguments.
     *
     * @param args the command's arguments
     * @param defaultRunId the run id when none is given
     * @throws IllegalArgumentException with a message for the user when an argument is wrong
     */
    public static GenerateOptions parse(List<String> args, String defaultRunId) {
        Map<String, String> values = new LinkedHashMap<>();
        for (int i = 0; i < args.size(); i++) {
            String arg = args.get(i);
            if (!arg.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument '" + arg + "'");
            }
            String name = arg.substring(2);
            String value;
            int eq = name.indexOf('=');
            if (eq > 0 && name.lastIndexOf('.', eq) > 0) {
                // a Spring property (--spring.rabbitmq.host=..., --lens.topology.exchange=...): the application's
                continue;
            }
            if (eq >= 0) {
                value = name.substring(eq + 1);
                name = name.substring(0, eq);
            } else if (i + 1 < args.size()) {
                value = args.get(++i);
            } else {
                throw new IllegalArgumentException("--" + name + " needs a value");
            }
            if (!NAMES.contains(name)) {
                throw new IllegalArgumentException("unknown option --" + name
                        + (name.indexOf('.') > 0 ? " (a Spring property takes the form --name=value)" : ""));
            }
            if (values.put(name, value) != null) {
                throw new IllegalArgumentException("--" + name + " given twice");
            }
        }
        Target target = choice(values, "target", Target.AMQP);
        Encoding encoding = choice(values, "encoding", Encoding.PROTOBUF);
        long count = longValue(values, "count", 100, 0);
        double rate = doubleValue(values, "rate", 0);
        if (count == 0 && rate == 0) {
            throw new IllegalArgumentException("--count 0 (until stopped) needs a --rate above 0");
        }
        URI endpoint;
        try {
            endpoint = URI.create(values.getOrDefault("otlp-endpoint", "http://localhost:4318"));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--otlp-endpoint is not a URL: " + e.getMessage());
        }
        if (!"http".equals(endpoint.getScheme()) && !"https".equals(endpoint.getScheme())) {
            throw new IllegalArgumentException("--otlp-endpoint must be an http or https URL, got '" + endpoint + "'");
        }
        String runId = values.getOrDefault("run-id", defaultRunId);
        if (runId.isBlank()) {
            throw new IllegalArgumentException("--run-id must not be blank");
        }
        String exchange = values.get("exchange");
        if (exchange != null && exchange.isBlank()) {
            throw new IllegalArgumentException("--exchange must not be blank");
        }
        int ranks = (int) longValue(values, "ranks", 8, 1);
        int gpusPerHost = (int) longValue(values, "gpus-per-host", 8, 1);
        return new GenerateOptions(
                target,
                encoding,
                kinds(values.getOrDefault("signals", "spans,metrics,logs,gpu,node")),
                count,
                rate,
                (int) longValue(values, "spans-per-message", 96, 1),
                (int) longValue(values, "logs-per-message", 32, 1),
                ranks,
                gpusPerHost,
                runId,
                longValue(values, "seed", 42, Long.MIN_VALUE),
                exchange,
                endpoint,
                (int) longValue(values, "in-flight", 10, 1),
                java.time.Duration.ofSeconds(longValue(values, "retry-for", 60, 0)),
                faults(values, ranks, gpusPerHost));
    }

    /** The straggler options: each rank among {@code ranks}, the throttled rank's GPU among {@code gpusPerHost}. */
    private static Faults faults(Map<String, String> values, int ranks, int gpusPerHost) {
        Integer slowRank = rank(values, "slow-rank", ranks);
        if (slowRank == null && (values.containsKey("slow-factor") || values.containsKey("slow-from"))) {
            throw new IllegalArgumentException(
                    "--" + (values.containsKey("slow-factor") ? "slow-factor" : "slow-from") + " needs a --slow-rank");
        }
        double slowFactor = Faults.DEFAULT_SLOW_FACTOR;
        String factor = values.get("slow-factor");
        if (factor != null) {
            try {
                slowFactor = Double.parseDouble(factor.trim());
            } catch (NumberFormatException e) {
                slowFactor = Double.NaN;
            }
            if (!(slowFactor > 1) || Double.isInfinite(slowFactor)) {
                throw new IllegalArgumentException("--slow-factor must be a number above 1, got '" + factor + "'");
            }
        }
        long slowFrom = longValue(values, "slow-from", Faults.DEFAULT_SLOW_FROM, 1);
        Integer throttledRank = rank(values, "throttled-rank", ranks);
        if (throttledRank != null && throttledRank % 8 >= gpusPerHost) {
            throw new IllegalArgumentException("--throttled-rank " + throttledRank + " runs on GPU "
                    + throttledRank % 8 + " of " + TrainingRank.hostOf(throttledRank)
                    + ", which --gpus-per-host " + gpusPerHost + " leaves out");
        }
        Integer flakyNetworkRank = rank(values, "flaky-network-rank", ranks);
        return new Faults(slowRank, slowFactor, slowFrom, throttledRank, flakyNetworkRank);
    }

    /** The option {@code name} as a global rank, one of {@code ranks}, or {@code null} when it is not given. */
    private static @Nullable Integer rank(Map<String, String> values, String name, int ranks) {
        if (!values.containsKey(name)) {
            return null;
        }
        long rank = longValue(values, name, 0, 0);
        if (rank >= ranks) {
            throw new IllegalArgumentException(
                    "--" + name + " must be a rank from 0 to " + (ranks - 1) + " (--ranks " + ranks + "), got " + rank);
        }
        return (int) rank;
    }

    private static List<Kind> kinds(String list) {
        Set<Kind> kinds = new LinkedHashSet<>();
        for (String word : list.split(",", -1)) {
            String w = word.trim().toLowerCase(Locale.ROOT);
            Kind kind = null;
            for (Kind k : Kind.values()) {
                if (k.label().equals(w)) {
                    kind = k;
                }
            }
            if (kind == null) {
                throw new IllegalArgumentException("--signals: unknown signal '" + word.trim()
                        + "' (choose from spans, metrics, logs, gpu, node)");
            }
            kinds.add(kind);
        }
        return new ArrayList<>(kinds);
    }

    /**
     * The option {@code name} as a constant of {@code defaultValue}'s enum, written in lower case with dashes
     * for underscores ({@code otlp-http} for {@code OTLP_HTTP}).
     */
    private static <E extends Enum<E>> E choice(Map<String, String> values, String name, E defaultValue) {
        String word = values.get(name);
        if (word == null) {
            return defaultValue;
        }
        List<String> words = new ArrayList<>();
        for (E constant : defaultValue.getDeclaringClass().getEnumConstants()) {
            String w = constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
            if (w.equals(word)) {
                return constant;
            }
            words.add(w);
        }
        throw new IllegalArgumentException(
                "--" + name + " must be " + String.join(" or ", words) + ", got '" + word + "'");
    }

    private static long longValue(Map<String, String> values, String name, long defaultValue, long min) {
        String text = values.get(name);
        if (text == null) {
            return defaultValue;
        }
        long value;
        try {
            value = Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a whole number, got '" + text + "'");
        }
        if (value < min) {
            throw new IllegalArgumentException("--" + name + " must be at least " + min + ", got " + value);
        }
        if (value > Integer.MAX_VALUE && !name.equals("count") && !name.equals("seed")) {
            throw new IllegalArgumentException("--" + name + " is too large: " + value);
        }
        return value;
    }

    private static double doubleValue(Map<String, String> values, String name, double defaultValue) {
        String text = values.get(name);
        if (text == null) {
            return defaultValue;
        }
        try {
            double value = Double.parseDouble(text.trim());
            if (!(value >= 0) || Double.isInfinite(value)) {
                throw new NumberFormatException();
            }
            return value;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a number of at least 0, got '" + text + "'");
        }
    }
}
