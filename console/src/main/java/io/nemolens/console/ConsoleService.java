package io.nemolens.console;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.nemolens.decode.DecodedMessage;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.handlers.RecordKind;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.record.GpuSample;
import io.nemolens.handlers.record.LogEntry;
import io.nemolens.handlers.record.MetricPoint;
import io.nemolens.handlers.record.NodeSample;
import io.nemolens.handlers.record.Span;
import io.nemolens.handlers.record.TelemetryRecord;
import io.nemolens.poison.Disposition;
import io.nemolens.poison.IndexRecord;
import io.nemolens.poison.PoisonIndex;
import io.nemolens.poison.PoisonMessage;
import io.nemolens.poison.PoisonReindexer;
import io.nemolens.poison.PoisonReplayer;
import io.nemolens.poison.QueueDepthMonitor;
import io.nemolens.poison.ReplayRequest;
import io.nemolens.poison.ReplaySummary;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.health.actuate.endpoint.CompositeHealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthDescriptor;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.IndicatedHealthDescriptor;

/**
 * What the console's pages show and do. Numbers come from the meter registry that
 * {@code /actuator/prometheus} reads and the health endpoint that {@code /actuator/health} answers; the
 * poison queue from the poison index (no page reads a message of the queue); actions go through the
 * {@link PoisonReplayer} and {@link PoisonReindexer}, which record them in the index, and are logged here
 * with who did them and what they touched.
 */
public final class ConsoleService {

    private static final Logger log = LoggerFactory.getLogger(ConsoleService.class);
    private static final int HEX_PREVIEW = 1024;
    private static final int DECODED_LINES = 20;

    /** One health indicator, in words. */
    public record HealthLine(String name, String status, String words) {}

    /**
     * The archive's state from its meters and health details.
     *
     * @param store where its committed files go, or {@code null} when its health names no store
     * @param claims its claim registry, or {@code null} without one
     * @param tables its Iceberg tables, or {@code null} without a catalog
     */
    public record ArchiveState(
            double lagSeconds,
            double spoolBytes,
            double spoolEntries,
            double files,
            @Nullable Object freeBytes,
            @Nullable StoreState store,
            @Nullable ClaimsState claims,
            @Nullable TablesState tables) {}

    /**
     * Where the archive's committed files go ({@code store} of its health), and what waits for it
     * ({@code lens.archive.store.*}).
     *
     * @param location a folder, or {@code s3://bucket/prefix}
     * @param uploadLagSeconds how long the oldest file waiting for the store has waited (NaN: unknown)
     * @param filesWaiting files waiting for the store (NaN: unknown)
     * @param bytesWaiting about how many bytes they hold (NaN: unknown)
     * @param failures attempts that failed since start (NaN: unknown)
     * @param lastError the last failure's message, or {@code null} when there was none
     * @param lastErrorAt when it came (UTC, to the second), or {@code null}
     * @param failing whether the archive's health is DOWN because of the store
     */
    public record StoreState(
            String location,
            double uploadLagSeconds,
            double filesWaiting,
            double bytesWaiting,
            double failures,
            @Nullable String lastError,
            @Nullable String lastErrorAt,
            boolean failing) {

        /** The bytes waiting, in the unit that suits them. */
        public String bytesWaitingText() {
            return bytes(bytesWaiting);
        }

        /** The failed attempts since start in words, or {@code null} when their count is unknown. */
        public @Nullable String failuresText() {
            if (Double.isNaN(failures)) {
                return null;
            }
            long n = Math.round(failures);
            return n + (n == 1 ? " failed attempt" : " failed attempts") + " since start";
        }
    }

    /**
     * The archive's claim registry, from its health details ({@code claims}, {@code claimsWaiting},
     * {@code claimsLastError}).
     *
     * @param location where the registry is
     * @param waiting what its health says waits for it, or {@code null} when it says nothing
     * @param lastError its last error, or {@code null}
     * @param failing whether the archive's health is DOWN because of it
     */
    public record ClaimsState(
            String location,
            @Nullable Object waiting,
            @Nullable String lastError,
            boolean failing) {}

    /**
     * The archive's tables, from its health details ({@code tables}, {@code tablesFilesWaiting},
     * {@code tablesLagSeconds}, {@code tablesFilesAppended}, {@code tablesLastAppendAt}, {@code tablesLastError}).
     *
     * @param location the catalog and namespace
     * @param filesWaiting files in the folder or bucket that wait for their tables, or {@code null} when unsaid
     * @param lagSeconds how long the oldest of them has waited, or {@code null}
     * @param filesAppended files appended since start, or {@code null}
     * @param lastAppendAt when files were last appended (UTC, to the second), or {@code null} when none were since
     *     start
     * @param lastError the last failure's message, or {@code null}
     * @param failing whether the archive's health is DOWN because of the tables
     */
    public record TablesState(
            String location,
            @Nullable Object filesWaiting,
            @Nullable Object lagSeconds,
            @Nullable Object filesAppended,
            @Nullable String lastAppendAt,
            @Nullable String lastError,
            boolean failing) {}

    /**
     * The overview.
     *
     * @param status the application's overall health
     * @param outcomes messages by outcome, since start ({@code lens.messages})
     * @param messages messages by signal since start
     * @param records records by signal since start ({@code lens.records})
     * @param depths ready messages by queue role ({@code lens.queue.depth}, -1 unknown); the poison queue's
     *     read after the index last changed
     * @param poisonDepthAt when the poison queue's depth was read, or {@code null} when it is unknown
     * @param indexed messages the poison index holds
     * @param unindexed messages in the poison queue the index does not know, or -1 when that cannot be told
     *     (the depth unknown, or the index still being read)
     * @param archive the archive's state, or {@code null} without an archive
     * @param health every indicator
     */
    public record Overview(
            String status,
            Map<String, Double> outcomes,
            Map<String, Double> messages,
            Map<String, Double> records,
            Map<String, Double> depths,
            @Nullable Instant poisonDepthAt,
            int indexed,
            long unindexed,
            @Nullable ArchiveState archive,
            List<HealthLine> health) {}

    /** A poison message with its full record, read back from the index stream. */
    public record MessageView(
            PoisonIndex.Entry entry,
            Map<String, String> headers,
            String stackTrace,
            byte[] body,
            boolean truncated,
            @Nullable String contentType,
            @Nullable String decoded,
            List<String> decodedLines,
            String hex,
            @Nullable String text) {}

    private final MeterRegistry registry;
    private final ObjectProvider<HealthEndpoint> health;
    private final PoisonIndex index;
    private final PoisonReplayer replayer;
    private final PoisonReindexer reindexer;
    private final OtlpDecoder decoder;
    private final @Nullable QueueDepthMonitor depthPoll;

    /**
     * @param registry the registry {@code /actuator/prometheus} reads: the overview's numbers
     * @param health the health endpoint, looked up at each overview (none: the status is UNKNOWN)
     * @param poison the poison tooling
     * @param decoder what shows a poison message's records
     */
    public ConsoleService(
            MeterRegistry registry, ObjectProvider<HealthEndpoint> health, PoisonTooling poison, OtlpDecoder decoder) {
        this.registry = registry;
        this.health = health;
        this.index = poison.index();
        this.replayer = poison.replayer();
        this.reindexer = poison.reindexer();
        this.decoder = decoder;
        this.depthPoll = poison.depthPoll();
    }

    PoisonIndex index() {
        return index;
    }

    Overview overview() {
        Map<String, Double> outcomes = new LinkedHashMap<>();
        for (String o : List.of("acked", "poisoned", "dead-lettered", "requeued")) {
            outcomes.put(o, 0.0);
        }
        Map<String, Double> messages = zeroBySignal();
        for (Counter c : registry.find("lens.messages").counters()) {
            outcomes.merge(String.valueOf(c.getId().getTag("outcome")), c.count(), Double::sum);
            messages.computeIfPresent(String.valueOf(c.getId().getTag("signal")), (k, v) -> v + c.count());
        }
        Map<String, Double> records = zeroBySignal();
        for (Counter c : registry.find("lens.records").counters()) {
            records.computeIfPresent(String.valueOf(c.getId().getTag("signal")), (k, v) -> v + c.count());
        }
        Map<String, Double> depths = new LinkedHashMap<>();
        for (String q : List.of("processing", "poison", "parking-lot")) {
            Gauge g = registry.find("lens.queue.depth").tag("queue", q).gauge();
            depths.put(q, g == null ? -1 : g.value());
        }
        List<HealthLine> lines = new ArrayList<>();
        String status = "UNKNOWN";
        Map<String, Object> archiveHealth = Map.of();
        String archiveStatus = "UNKNOWN";
        HealthEndpoint endpoint = health.getIfAvailable();
        if (endpoint != null) {
            HealthDescriptor root = endpoint.health();
            status = root.getStatus().getCode();
            if (root instanceof CompositeHealthDescriptor composite && composite.getComponents() != null) {
                for (Map.Entry<String, HealthDescriptor> c :
                        composite.getComponents().entrySet()) {
                    Map<String, Object> details =
                            c.getValue() instanceof IndicatedHealthDescriptor i ? i.getDetails() : Map.of();
                    if (c.getKey().equals("archive")) {
                        archiveHealth = details;
                        archiveStatus = c.getValue().getStatus().getCode();
                    }
                    lines.add(new HealthLine(
                            c.getKey(), c.getValue().getStatus().getCode(), words(c.getValue(), details)));
                }
            }
        }
        ArchiveState archive = null;
        if (registry.find("lens.archive.lag").gauge() != null) {
            archive = new ArchiveState(
                    gauge("lens.archive.lag"),
                    gauge("lens.archive.spool.bytes"),
                    gauge("lens.archive.spool.entries"),
                    functionCounter("lens.archive.files"),
                    archiveHealth.get("freeBytes"),
                    store(archiveStatus, archiveHealth),
                    claims(archiveStatus, archiveHealth),
                    tables(archiveHealth));
        }
        int indexed = index.size();
        boolean caughtUp = index.isCaughtUp();
        QueueDepthMonitor.Depth poison = poisonDepth();
        depths.put("poison", poison == null ? -1.0 : poison.depth());
        Instant depthAt = null;
        long unindexed = -1;
        if (poison != null && poison.polledAt() != null && poison.depth() >= 0) {
            depthAt = poison.polledAt().truncatedTo(ChronoUnit.SECONDS);
            if (caughtUp) {
                unindexed = Math.max(0, poison.depth() - indexed);
            }
        }
        return new Overview(status, outcomes, messages, records, depths, depthAt, indexed, unindexed, archive, lines);
    }

    /**
     * The store from the archive's health details ({@code store}, {@code storeLastError},
     * {@code storeLastErrorAt}) and meters ({@code lens.archive.store.*}); {@code null} when the details name
     * no store (an archive from before stores).
     */
    @Nullable
    StoreState store(String status, Map<String, Object> details) {
        String location = text(details.get("store"));
        if (location == null) {
            return null;
        }
        String lastError = text(details.get("storeLastError"));
        return new StoreState(
                location,
                gauge("lens.archive.store.lag"),
                gauge("lens.archive.store.waiting.files"),
                gauge("lens.archive.store.waiting.bytes"),
                functionCounter("lens.archive.store.failures"),
                lastError,
                time(text(details.get("storeLastErrorAt"))),
                failing(details, "storeFailingSince"));
    }

    /** The claim registry from the archive's health details, or {@code null} when they name none. */
    static @Nullable ClaimsState claims(String status, Map<String, Object> details) {
        String location = text(details.get("claims"));
        if (location == null) {
            return null;
        }
        String lastError = text(details.get("claimsLastError"));
        return new ClaimsState(
                location, details.get("claimsWaiting"), lastError, failing(details, "claimsFailingSince"));
    }

    /** The tables from the archive's health details, or {@code null} when they name none. */
    static @Nullable TablesState tables(Map<String, Object> details) {
        String location = text(details.get("tables"));
        if (location == null) {
            return null;
        }
        return new TablesState(
                location,
                details.get("tablesFilesWaiting"),
                details.get("tablesLagSeconds"),
                details.get("tablesFilesAppended"),
                time(text(details.get("tablesLastAppendAt"))),
                text(details.get("tablesLastError")),
                failing(details, "tablesFailingSince"));
    }

    /**
     * Whether the store or the registry fails now: the archive's health says since when
     * ({@code storeFailingSince}, {@code claimsFailingSince}) while every attempt fails, and the archive is DOWN
     * meanwhile.
     */
    static boolean failing(Map<String, Object> details, String since) {
        return text(details.get(since)) != null;
    }

    private static @Nullable String text(@Nullable Object detail) {
        return detail == null || detail.toString().isBlank() ? null : detail.toString();
    }

    /** An instant as the health detail spells it, to the second; any other text as it is. */
    static @Nullable String time(@Nullable String instant) {
        if (instant == null || instant.equals("null")) {
            return null;
        }
        try {
            return Instant.parse(instant).truncatedTo(ChronoUnit.SECONDS).toString();
        } catch (DateTimeParseException e) {
            return instant;
        }
    }

    /** A byte count in B, KiB, MiB, GiB or TiB ("unknown" for NaN). */
    static String bytes(double bytes) {
        if (Double.isNaN(bytes)) {
            return "unknown";
        }
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        double v = bytes;
        int unit = 0;
        while (v >= 1024 && unit < units.length - 1) {
            v /= 1024;
            unit++;
        }
        return unit == 0
                ? String.format(Locale.ROOT, "%.0f B", v)
                : String.format(Locale.ROOT, "%.1f %s", v, units[unit]);
    }

    /**
     * The poison queue's depth, read after the index last changed (read after its size was): the last
     * poll's when it is that recent, else one passive declare now. A depth from before a replay or discard
     * that the index has already applied would count the moved messages as unindexed.
     */
    private QueueDepthMonitor.@Nullable Depth poisonDepth() {
        if (depthPoll == null) {
            return null;
        }
        Instant changed = index.changedAt();
        return changed == null ? depthPoll.depth("poison") : depthPoll.depthAsOf("poison", changed);
    }

    private static Map<String, Double> zeroBySignal() {
        Map<String, Double> m = new LinkedHashMap<>();
        FlowSampler.SIGNALS.forEach(s -> m.put(s, 0.0));
        return m;
    }

    private double gauge(String name) {
        Gauge g = registry.find(name).gauge();
        return g == null ? Double.NaN : g.value();
    }

    private double functionCounter(String name) {
        FunctionCounter c = registry.find(name).functionCounter();
        return c == null ? Double.NaN : c.count();
    }

    /** An indicator's state in a sentence: its reason or error when it has one, else its main details. */
    static String words(HealthDescriptor descriptor, Map<String, Object> details) {
        String status = descriptor.getStatus().getCode();
        String state = switch (status) {
            case "UP" -> "working";
            case "DOWN" -> "failing";
            case "OUT_OF_SERVICE" -> "out of service";
            default -> "state unknown";
        };
        Object reason = details.getOrDefault("reason", details.get("error"));
        if (reason != null) {
            return state + ": " + reason;
        }
        String shown = details.entrySet().stream()
                .filter(e -> !(e.getValue() instanceof Map<?, ?>) && !(e.getValue() instanceof Iterable<?>))
                .limit(6)
                .map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", "));
        return shown.isEmpty() ? state : state + " (" + shown + ")";
    }

    Optional<MessageView> message(String key) throws IOException {
        Optional<PoisonIndex.Entry> found = index.entry(key);
        if (found.isEmpty()) {
            return Optional.empty();
        }
        PoisonIndex.Entry entry = found.get();
        IndexRecord record = index.record(entry.offset());
        IndexRecord.Poisoned p = record.poisoned();
        if (p == null) {
            throw new IOException("the record at offset " + entry.offset() + " describes no poisoned message");
        }
        byte[] body = Base64.getDecoder().decode(p.body());
        String decoded = null;
        List<String> lines = new ArrayList<>();
        Signal signal = Signal.forRoutingKey(entry.message().routingKey());
        if (!p.bodyTruncated() && signal != null) {
            try {
                DecodedMessage d = decoder.decode(signal, body, p.contentType());
                decoded = describe(d);
                lines = lines(d);
            } catch (RuntimeException e) {
                decoded = null;
            }
        }
        return Optional.of(new MessageView(
                entry,
                new LinkedHashMap<>(p.headers()),
                p.stackTrace(),
                body,
                p.bodyTruncated(),
                p.contentType(),
                decoded,
                lines,
                hex(body),
                text(body)));
    }

    private static String describe(DecodedMessage d) {
        List<String> parts = new ArrayList<>();
        for (RecordKind<?> kind : RecordKind.all()) {
            count(parts, d.records().count(kind), kind.noun());
        }
        List<String> runs =
                d.records().runIds().stream().filter(id -> !id.isEmpty()).toList();
        return "decodes as OTLP " + d.encoding().tag() + " " + d.signal().tag() + ": "
                + (parts.isEmpty() ? "no records" : String.join(", ", parts))
                + (runs.isEmpty() ? "" : "; runs " + String.join(", ", runs));
    }

    private static void count(List<String> parts, int n, String what) {
        if (n > 0) {
            parts.add(n + " " + what + (n == 1 ? "" : "s"));
        }
    }

    private static List<String> lines(DecodedMessage d) {
        List<String> out = new ArrayList<>();
        for (RecordKind<?> kind : RecordKind.all()) {
            for (TelemetryRecord record : d.records().get(kind)) {
                if (out.size() == DECODED_LINES) {
                    return out;
                }
                out.add(line(kind, record));
            }
        }
        return out;
    }

    /** One line of a decoded record: what an operator recognises it by. */
    private static String line(RecordKind<?> kind, TelemetryRecord record) {
        if (record instanceof Span s) {
            return "span " + s.name() + " (" + s.durationNanos() / 1_000_000 + " ms)";
        } else if (record instanceof MetricPoint p) {
            return "metric " + p.metric().name();
        } else if (record instanceof GpuSample g) {
            return "gpu " + g.metricName() + " = " + g.value();
        } else if (record instanceof NodeSample n) {
            return "node " + n.metricName() + " = " + n.value();
        } else if (record instanceof LogEntry l) {
            return "log " + l.severityText() + " " + l.body();
        }
        return kind.noun() + " of run " + record.runId();
    }

    static String hex(byte[] body) {
        StringBuilder sb = new StringBuilder();
        int n = Math.min(body.length, HEX_PREVIEW);
        for (int row = 0; row < n; row += 16) {
            sb.append(HexFormat.of().toHexDigits(row)).append("  ");
            StringBuilder ascii = new StringBuilder();
            for (int i = row; i < row + 16; i++) {
                if (i < n) {
                    sb.append(HexFormat.of().toHexDigits(body[i])).append(' ');
                    ascii.append(body[i] >= 0x20 && body[i] < 0x7f ? (char) body[i] : '.');
                } else {
                    sb.append("   ");
                }
            }
            sb.append(' ').append(ascii).append('\n');
        }
        if (body.length > n) {
            sb.append("... ").append(body.length - n).append(" more bytes\n");
        }
        return sb.toString();
    }

    /** The body as text when it is valid UTF-8 without control characters other than whitespace. */
    static @Nullable String text(byte[] body) {
        try {
            String s = StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(body))
                    .toString();
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c < 0x20 && c != '\n' && c != '\r' && c != '\t') {
                    return null;
                }
            }
            return s.length() > 8192 ? s.substring(0, 8192) + "\n..." : s;
        } catch (CharacterCodingException e) {
            return null;
        }
    }

    /** The index's messages with these keys (those it still holds), in index order. */
    List<PoisonIndex.Entry> selected(Set<String> keys) {
        return index.entries().stream().filter(e -> keys.contains(e.key())).toList();
    }

    /** What a replay, park or discard of these messages would do, from the index alone: the queue is not touched. */
    ReplaySummary preview(Set<String> keys, Disposition disposition, double rate) {
        List<PoisonMessage> messages =
                selected(keys).stream().map(PoisonIndex.Entry::message).toList();
        return replayer.preview(messages, ReplayRequest.selection(keys, true, rate), disposition);
    }

    /** Does it: one walk of the poison queue; logged, and recorded in the index. */
    ReplaySummary act(Set<String> keys, Disposition disposition, double rate, String who) throws IOException {
        log.info(
                "console: {} asks to {} {} message(s): {}",
                who,
                disposition.name().toLowerCase(Locale.ROOT),
                keys.size(),
                keys.stream().sorted().limit(50).collect(Collectors.joining(", ")));
        ReplaySummary summary = replayer.move(ReplayRequest.selection(keys, false, rate), disposition, who);
        log.info("console: {} {}: {}", who, disposition.name().toLowerCase(Locale.ROOT), summary.line());
        return summary;
    }

    PoisonReindexer.Result reindex(String who) throws IOException {
        log.info("console: {} asks to index the unindexed messages of the poison queue", who);
        return reindexer.reindex(who);
    }
}
