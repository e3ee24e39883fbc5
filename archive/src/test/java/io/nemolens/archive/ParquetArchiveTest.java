package io.nemolens.archive;

import static org.assertj.core.api.Assertions.as;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.Message;
import io.nemolens.archive.testing.Messages;
import io.nemolens.decode.DecodedMessage;
import io.nemolens.decode.MessageIds;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.generator.NemoLensTelemetry;
import io.nemolens.handlers.ReceivedMessage;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.TransientHandlerException;
import io.nemolens.handlers.record.AnyValue;
import io.nemolens.handlers.record.LogEntry;
import io.nemolens.handlers.record.MetricPoint;
import io.nemolens.handlers.record.PointValue;
import io.nemolens.handlers.record.Span;
import io.nemolens.testing.ArchiveReader;
import io.nemolens.testing.MutableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Array;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

/** The archive writes what it is given, read back with DuckDB; it commits before it acknowledges. */
class ParquetArchiveTest extends ArchiveTestCase {

    private ParquetArchive open(ArchiveOptions options) {
        archive = ParquetArchive.builder(options, decoder).open();
        return archive;
    }

    /** A message as the consumer hands it to its sinks. */
    static ReceivedMessage received(DecodedMessage d, byte[] body) {
        return Messages.received(d, body);
    }

    private ReceivedMessage received(Signal signal, Message request) {
        byte[] body = request.toByteArray();
        return received(decoder.decode(signal, body, null), body);
    }

    /** Hands the message to the archive and waits until it is durable in the spool (the consumer's ack). */
    private void take(ReceivedMessage message) throws Exception {
        archive.accept(message).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @Test
    void spansAreArchivedWithEveryFieldAndAcknowledgedOnceSpooledBeforeTheirFileIsCommitted() throws Exception {
        open(ArchiveOptions.defaults(dir));
        byte[] body = NemoLensTelemetry.traces().toByteArray();
        DecodedMessage decoded = decoder.decode(Signal.SPANS, body, null);
        take(received(decoded, body));

        assertThat(parquetFiles()).as("no file is visible before its commit").isEmpty();
        assertThat(temporaryFiles()).isNotEmpty();
        assertThat(archive.status().spool().entries()).isEqualTo(1);
        archive.commitNow();
        assertThat(temporaryFiles()).isEmpty();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(
                        () -> assertThat(archive.status().spool().entries()).isZero());

        try (ArchiveReader reader = new ArchiveReader(dir)) {
            List<Map<String, Object>> rows = reader.query("""
                    SELECT trace_id, span_id, parent_span_id, trace_state, name, kind, start_time_unix_nano,
                           end_time_unix_nano, duration_nanos, status_code, status_message, flags, service_name, run_id,
                           dl_rank, megatron_iteration, host_name, scope_name, scope_version, dropped_attributes_count,
                           dropped_events_count, dropped_links_count, _message_id, _row,
                           len(events) AS event_count, len(links) AS link_count, len(json_keys(attributes)) AS attribute_count
                    FROM %s ORDER BY _row""", "spans");
            List<Span> spans = decoded.records().spans();
            assertThat(rows).hasSize(spans.size());
            for (int i = 0; i < spans.size(); i++) {
                Span s = spans.get(i);
                Map<String, Object> r = rows.get(i);
                assertThat(r.get("trace_id")).isEqualTo(s.traceId());
                assertThat(r.get("span_id")).isEqualTo(s.spanId());
                assertThat(r.get("parent_span_id")).isEqualTo(s.parentSpanId().isEmpty() ? null : s.parentSpanId());
                assertThat(r.get("trace_state")).isEqualTo(s.traceState().isEmpty() ? null : s.traceState());
                assertThat(r.get("name")).isEqualTo(s.name());
                assertThat(r.get("kind")).isEqualTo(s.kindValue());
                assertThat(r.get("start_time_unix_nano")).isEqualTo(s.startTimeUnixNano());
                assertThat(r.get("end_time_unix_nano")).isEqualTo(s.endTimeUnixNano());
                assertThat(r.get("duration_nanos")).isEqualTo(s.durationNanos());
                assertThat(r.get("status_code")).isEqualTo(s.statusCodeValue());
                assertThat(r.get("flags")).isEqualTo(Integer.toUnsignedLong(s.flags()));
                assertThat(r.get("service_name")).isEqualTo(s.resource().serviceName());
                assertThat(r.get("run_id")).isEqualTo(NemoLensTelemetry.RUN_ID);
                assertThat(r.get("dl_rank")).isEqualTo(s.resource().attributes().getLong("dl.rank"));
                assertThat(r.get("megatron_iteration")).isEqualTo(s.attributes().getLong("megatron.iteration"));
                assertThat(r.get("host_name"))
                        .isEqualTo(s.resource().attributes().getText("host.name", null));
                assertThat(r.get("scope_name"))
                        .isEqualTo(s.scope().name().isEmpty() ? null : s.scope().name());
                assertThat(r.get("dropped_attributes_count")).isEqualTo(s.droppedAttributesCount());
                assertThat(r.get("dropped_events_count")).isEqualTo(s.droppedEventsCount());
                assertThat(r.get("dropped_links_count")).isEqualTo(s.droppedLinksCount());
                assertThat(r.get("_message_id")).isEqualTo(MessageIds.of(body));
                assertThat(r.get("_row")).isEqualTo(i);
                assertThat(((Number) r.get("event_count")).intValue())
                        .isEqualTo(s.events().size());
                assertThat(((Number) r.get("link_count")).intValue())
                        .isEqualTo(s.links().size());
                assertThat(((Number) r.get("attribute_count")).intValue())
                        .isEqualTo(s.attributes().size());
            }

            Span step = spans.get(0);
            Map<String, Object> events = reader.query("""
                    SELECT events[1].name AS first_name, events[1].time_unix_nano AS first_time,
                           json_extract_string(events[2].attributes, '$.grad_norm.doubleValue') AS nan_value,
                           events[2].dropped_attributes_count AS dropped,
                           links[1].trace_id AS link_trace, links[1].span_id AS link_span, links[1].trace_state AS link_state,
                           links[1].attributes->>'$."link.reason".stringValue' AS link_reason, links[1].flags AS link_flags,
                           resource_attributes->>'$."dl.world_size".intValue' AS world_size,
                           scope_attributes->>'$."telemetry.backend".stringValue' AS backend
                    FROM %s WHERE _row = 0""", "spans").get(0);
            assertThat(events.get("first_name")).isEqualTo(step.events().get(0).name());
            assertThat(events.get("first_time")).isEqualTo(step.events().get(0).timeUnixNano());
            assertThat(events.get("nan_value")).isEqualTo("NaN");
            assertThat(events.get("world_size")).isEqualTo("16");
            assertThat(events.get("backend")).isEqualTo("nemo-lens");
            assertThat(events.get("dropped")).isEqualTo(1);
            assertThat(events.get("link_trace")).isEqualTo(NemoLensTelemetry.LINKED_TRACE_ID_HEX);
            assertThat(events.get("link_span")).isEqualTo(NemoLensTelemetry.LINKED_SPAN_ID_HEX);
            assertThat(events.get("link_state")).isEqualTo("rojo=00f067aa0ba902b7");
            assertThat(events.get("link_reason")).isEqualTo("grad_sync");
            assertThat(events.get("link_flags")).isEqualTo(0x301L);
        }
    }

    @Test
    void attributeValuesOfEveryTypeKeepTheirType() throws Exception {
        open(ArchiveOptions.defaults(dir));
        DecodedMessage decoded =
                decoder.decode(Signal.SPANS, NemoLensTelemetry.traces().toByteArray(), null);
        take(received(Signal.SPANS, decoded.request()));
        archive.commitNow();
        Span forward = decoded.records().spans().stream()
                .filter(s -> s.name().equals("megatron.forward_backward"))
                .findFirst()
                .orElseThrow();

        try (ArchiveReader reader = new ArchiveReader(dir)) {
            List<Map<String, Object>> keys = reader.query(
                    "SELECT unnest(json_keys(attributes)) AS key FROM %s WHERE name = 'megatron.forward_backward'",
                    "spans");
            assertThat(keys)
                    .extracting(k -> k.get("key"))
                    .containsExactlyElementsOf(forward.attributes().asMap().keySet());
            for (int i = 0; i < forward.attributes().size(); i++) {
                String key = forward.attributes().keyAt(i);
                AnyValue expected = forward.attributes().valueAt(i);
                String path = "$.\"" + key + "\"";
                Map<String, Object> e = reader.query(
                                "SELECT json_keys(json_extract(attributes, '" + path + "')) AS kinds, "
                                        + "json_extract_string(attributes, '" + path + ".stringValue') AS s, "
                                        + "json_extract(attributes, '" + path + ".intValue')::VARCHAR AS i, "
                                        + "json_extract(attributes, '" + path + ".doubleValue')::VARCHAR AS d, "
                                        + "json_extract(attributes, '" + path + ".boolValue')::BOOLEAN AS b, "
                                        + "json_extract_string(attributes, '" + path + ".bytesValue') AS bytes "
                                        + "FROM %s WHERE name = 'megatron.forward_backward'",
                                "spans")
                        .get(0);
                String kind = switch (expected.type()) {
                    case STRING -> "stringValue";
                    case BOOL -> "boolValue";
                    case INT -> "intValue";
                    case DOUBLE -> "doubleValue";
                    case BYTES -> "bytesValue";
                    case ARRAY -> "arrayValue";
                    case KVLIST -> "kvlistValue";
                    case EMPTY -> null;
                };
                Object[] kinds = (Object[]) ((Array) e.get("kinds")).getArray();
                assertThat(kinds).as(key).containsExactly(kind == null ? new Object[0] : new Object[] {kind});
                switch (expected.type()) {
                    case STRING -> assertThat(e.get("s")).isEqualTo(((AnyValue.StringValue) expected).value());
                    case INT -> assertThat(e.get("i")).isEqualTo("\"" + ((AnyValue.IntValue) expected).value() + "\"");
                    case DOUBLE -> {
                        double d = ((AnyValue.DoubleValue) expected).value();
                        String text = (String) e.get("d");
                        assertThat(
                                        Double.isNaN(d) || Double.isInfinite(d)
                                                ? Double.parseDouble(text.replace("\"", ""))
                                                : Double.parseDouble(text))
                                .isEqualTo(Double.valueOf(d));
                    }
                    case BOOL -> assertThat(e.get("b")).isEqualTo(((AnyValue.BoolValue) expected).value());
                    case BYTES ->
                        assertThat(Base64.getDecoder().decode((String) e.get("bytes")))
                                .isEqualTo(((AnyValue.BytesValue) expected).value());
                    default -> {}
                }
            }
            // one attribute of each type, as the README shows it
            Map<String, Object> typed = reader.query("""
                    SELECT attributes->>'$.str.stringValue' AS s,
                           (attributes->>'$.int.intValue')::BIGINT AS i,
                           (attributes->>'$.double.doubleValue')::DOUBLE AS d,
                           (attributes->>'$.bool.boolValue')::BOOLEAN AS b,
                           from_base64(attributes->>'$.bytes.bytesValue') AS bytes,
                           attributes->>'$.array.arrayValue.values[1].arrayValue.values[0].stringValue' AS nested,
                           attributes->>'$.kvlist.kvlistValue.values[1].value.kvlistValue.values[0].value.intValue' AS depth
                    FROM %s WHERE name = 'megatron.forward_backward'""", "spans").get(0);
            assertThat(typed.get("s")).isEqualTo("täst \"quoted\"\n\ttab \u0001 ✓");
            assertThat(typed.get("i")).isEqualTo(-42L);
            assertThat(typed.get("d")).isEqualTo(0.1);
            assertThat(typed.get("b")).isEqualTo(true);
            java.sql.Blob blob = (java.sql.Blob) typed.get("bytes");
            assertThat(blob.getBytes(1, (int) blob.length()))
                    .isEqualTo("\u00ff\u00fe raw".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            assertThat(typed.get("nested")).isEqualTo("deep");
            assertThat(typed.get("depth")).isEqualTo("2");
        }
    }

    @Test
    void metricPointsOfAllKindsAreArchived() throws Exception {
        open(ArchiveOptions.defaults(dir));
        DecodedMessage decoded =
                decoder.decode(Signal.METRICS, NemoLensTelemetry.metrics().toByteArray(), null);
        take(received(Signal.METRICS, decoded.request()));
        archive.commitNow();
        List<MetricPoint> points = decoded.records().metricPoints();

        try (ArchiveReader reader = new ArchiveReader(dir)) {
            List<Map<String, Object>> rows = reader.query("""
                    SELECT metric_name, metric_type, unit, start_time_unix_nano, time_unix_nano, value, int_value, count, sum,
                           min, max, bucket_counts, explicit_bounds, exp_scale, exp_zero_count, exp_positive_offset,
                           exp_positive_bucket_counts, exp_negative_bucket_counts, quantiles, len(exemplars) AS exemplar_count,
                           exemplars[1].trace_id AS exemplar_trace, exemplars[1].value AS exemplar_value, flags, no_recorded_value, _row
                    FROM %s ORDER BY _row""", "metrics");
            assertThat(rows).hasSize(points.size());
            assertThat(rows)
                    .extracting(r -> r.get("metric_type"))
                    .contains("gauge", "sum", "histogram", "exponential_histogram", "summary");
            for (int i = 0; i < points.size(); i++) {
                MetricPoint p = points.get(i);
                Map<String, Object> r = rows.get(i);
                assertThat(r.get("metric_name")).isEqualTo(p.name());
                assertThat(r.get("metric_type")).isEqualTo(p.metric().type().archiveName());
                assertThat(r.get("time_unix_nano")).isEqualTo(p.timeUnixNano());
                assertThat(r.get("start_time_unix_nano"))
                        .isEqualTo(p.startTimeUnixNano() == 0 ? null : p.startTimeUnixNano());
                assertThat(r.get("no_recorded_value")).isEqualTo(p.noRecordedValue());
                assertThat(r.get("exemplar_count"))
                        .isEqualTo((long) p.exemplars().size());
                if (!p.exemplars().isEmpty()) {
                    assertThat(r.get("exemplar_trace"))
                            .isEqualTo(
                                    p.exemplars().get(0).traceId().isEmpty()
                                            ? null
                                            : p.exemplars().get(0).traceId());
                }
                PointValue v = p.value();
                if (v instanceof PointValue.Number n) {
                    if (n.value().isPresent()) {
                        assertThat(r.get("value"))
                                .isEqualTo(Double.valueOf(n.value().asDouble()));
                    } else {
                        assertThat(r.get("value")).isNull();
                        assertThat(r.get("int_value")).isNull();
                    }
                    if (n.value().kind() == io.nemolens.handlers.record.NumberValue.Kind.INT) {
                        assertThat(r.get("int_value")).isEqualTo(n.value().asLong());
                    }
                } else if (v instanceof PointValue.Histogram h) {
                    assertThat(r.get("count")).isEqualTo(h.count());
                    assertThat(longs(r.get("bucket_counts"))).isEqualTo(h.bucketCounts());
                    assertThat(doubles(r.get("explicit_bounds"))).isEqualTo(h.explicitBounds());
                    assertThat(r.get("sum"))
                            .isEqualTo(h.sum().isPresent() ? h.sum().getAsDouble() : null);
                    assertThat(r.get("min"))
                            .isEqualTo(h.min().isPresent() ? h.min().getAsDouble() : null);
                } else if (v instanceof PointValue.ExponentialHistogram e) {
                    assertThat(r.get("count")).isEqualTo(e.count());
                    assertThat(r.get("exp_scale")).isEqualTo(e.scale());
                    assertThat(r.get("exp_zero_count")).isEqualTo(e.zeroCount());
                    assertThat(r.get("exp_positive_offset"))
                            .isEqualTo(e.positive().offset());
                    assertThat(longs(r.get("exp_positive_bucket_counts")))
                            .isEqualTo(e.positive().bucketCounts());
                    assertThat(longs(r.get("exp_negative_bucket_counts")))
                            .isEqualTo(e.negative().bucketCounts());
                } else if (v instanceof PointValue.Summary s) {
                    assertThat(r.get("count")).isEqualTo(s.count());
                    assertThat(r.get("sum")).isEqualTo(s.sum());
                    assertThat(((Object[]) ((Array) r.get("quantiles")).getArray()))
                            .hasSize(s.quantileValues().size());
                }
            }
        }
    }

    @Test
    void logsAreArchivedWithTypedBodies() throws Exception {
        open(ArchiveOptions.defaults(dir));
        DecodedMessage decoded =
                decoder.decode(Signal.LOGS, NemoLensTelemetry.logs().toByteArray(), null);
        take(received(Signal.LOGS, decoded.request()));
        archive.commitNow();

        try (ArchiveReader reader = new ArchiveReader(dir)) {
            List<Map<String, Object>> rows = reader.query("""
                    SELECT time_unix_nano, observed_time_unix_nano, severity_number, severity_text, body.type AS body_type,
                           body.string_value AS body_string, body.int_value AS body_int, event_name, trace_id, span_id, flags, run_id
                    FROM %s ORDER BY _row""", "logs");
            List<LogEntry> logs = decoded.records().logs();
            assertThat(rows).hasSize(logs.size());
            for (int i = 0; i < logs.size(); i++) {
                LogEntry l = logs.get(i);
                Map<String, Object> r = rows.get(i);
                assertThat(r.get("time_unix_nano")).isEqualTo(l.timeUnixNano() == 0 ? null : l.timeUnixNano());
                assertThat(r.get("severity_number")).isEqualTo(l.severityNumber());
                assertThat(r.get("body_type")).isEqualTo(l.body().type().name().toLowerCase());
                if (l.body() instanceof AnyValue.StringValue s) {
                    assertThat(r.get("body_string")).isEqualTo(s.value());
                }
                assertThat(r.get("trace_id")).isEqualTo(l.traceId().isEmpty() ? null : l.traceId());
                assertThat(r.get("span_id")).isEqualTo(l.spanId().isEmpty() ? null : l.spanId());
                assertThat(r.get("event_name")).isEqualTo(l.eventName().isEmpty() ? null : l.eventName());
            }
        }
    }

    @Test
    void filesAreHivePartitionedByDateAndRunAndRollByRows() throws Exception {
        open(ArchiveOptions.builder(dir)
                .maxRows(1500)
                .maxAge(Duration.ofMinutes(10))
                .build());
        for (int i = 0; i < 2; i++) {
            take(received(Signal.SPANS, NemoLensRequests.spans(1024, NemoLensTelemetry.RUN_ID, i, i)));
        }
        // 2048 rows for one partition: the file rolled at 1500 rows, after the second message
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(
                        () -> assertThat(archive.status().commits().files()).isEqualTo(1));
        for (int i = 0; i < 4; i++) {
            take(received(Signal.SPANS, NemoLensRequests.spans(1, "r", i, 100 + i)));
        }
        take(received(Signal.LOGS, NemoLensTelemetry.logs()));
        assertThat(archive.status().commits().files())
                .as("the other files wait for their age or size")
                .isEqualTo(1);
        archive.commitNow();
        List<Path> files = parquetFiles();
        assertThat(files).isNotEmpty().allSatisfy(f -> {
            assertThat(dir.relativize(f).toString())
                    .matches("(spans|logs)/date=\\d{4}-\\d{2}-\\d{2}/run_id=[^/]+/part-[^/]+\\.parquet");
        });
        assertThat(files)
                .extracting(f -> f.getParent().getFileName().toString())
                .contains("run_id=" + NemoLensTelemetry.RUN_ID, "run_id=r");
        try (ArchiveReader reader = new ArchiveReader(dir)) {
            assertThat(reader.scalar("SELECT count(*) FROM %s", "spans")).isEqualTo(2052L);
            assertThat(reader.scalar("SELECT count(DISTINCT _message_id) FROM %s", "spans"))
                    .isEqualTo(6L);
        }
    }

    @Test
    void aRegularFileWhereAFolderMustBeRefusesBatchesUntilRemoved() throws Exception {
        open(ArchiveOptions.defaults(dir));
        Files.writeString(dir.resolve("spans"), "not a folder");
        byte[] body = NemoLensTelemetry.traces().toByteArray();
        DecodedMessage decoded = decoder.decode(Signal.SPANS, body, null);
        ReceivedMessage first = received(decoded, body);

        // the first message is spooled (and acknowledged), but its rows cannot be written: the archive then
        // takes no more messages until the folder can be written, and writes the spooled rows again
        take(first);
        ReceivedMessage second = received(Signal.SPANS, NemoLensRequests.spans(10, "r2", 0, 0));
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() ->
                        assertThatThrownBy(() -> archive.accept(second)).isInstanceOf(TransientHandlerException.class));
        assertThat(archive.status().accepting()).isFalse();
        assertThat(archive.status().problem()).contains("spans");

        Files.delete(dir.resolve("spans"));
        take(second);
        assertThat(archive.status().accepting()).isTrue();
        assertThat(archive.rewritten(Duration.ofSeconds(20))).isTrue();
        archive.commitNow();
        try (ArchiveReader reader = new ArchiveReader(dir)) {
            assertThat(reader.scalar("SELECT count(*) FROM %s", "spans"))
                    .isEqualTo((long) decoded.records().spans().size() + 10);
            assertThat(reader.scalar("SELECT count(*) FROM (SELECT DISTINCT _message_id, _row FROM %s)", "spans"))
                    .as("each row once")
                    .isEqualTo((long) decoded.records().spans().size() + 10);
        }
    }

    @Test
    void theZstdLevelReachesTheFilesAndEitherLevelReadsBackTheSameRows() throws Exception {
        DecodedMessage decoded = decoder.decode(
                Signal.SPANS,
                NemoLensRequests.spans(2048, NemoLensTelemetry.RUN_ID, 0, 0).toByteArray(),
                null);
        long[] sizes = new long[2];
        int[] levels = {1, 19};
        for (int i = 0; i < levels.length; i++) {
            Path levelDir = dir.resolve("level-" + levels[i]);
            open(ArchiveOptions.builder(levelDir).zstdLevel(levels[i]).build());
            take(received(Signal.SPANS, decoded.request()));
            archive.commitNow();
            archive.close();
            try (var files = Files.walk(levelDir.resolve("spans"))) {
                sizes[i] = files.filter(f -> f.toString().endsWith(".parquet"))
                        .mapToLong(f -> f.toFile().length())
                        .sum();
            }
            try (ArchiveReader reader = new ArchiveReader(levelDir)) {
                assertThat(reader.scalar("SELECT count(DISTINCT span_id) FROM %s", "spans"))
                        .isEqualTo((long) decoded.records().spans().size());
            }
        }
        assertThat(sizes[1]).as("level 19 compresses harder than level 1").isLessThan(sizes[0]);
        assertThatThrownBy(() -> ArchiveOptions.builder(dir).zstdLevel(23).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("zstdLevel");
    }

    @Test
    void theClockItIsGivenTimesTheSpoolTheFilesAndTheDedupIndex() throws Exception {
        MutableClock clock = MutableClock.at("2026-11-29T19:17:35Z");
        // files a second old are committed, by the clock: the housekeeping looks every 100 ms
        archive = ParquetArchive.builder(
                        ArchiveOptions.builder(dir)
                                .maxAge(Duration.ofSeconds(1))
                                .build(),
                        decoder)
                .clock(clock)
                .open();
        ReceivedMessage message = received(Signal.SPANS, NemoLensRequests.spans(10, "run-a", 0, 1));
        take(message);

        clock.advance(Duration.ofMillis(900));
        assertThat(archive.status().commits().lag())
                .as("the spool's append time is the clock's")
                .isEqualTo(Duration.ofMillis(900));
        await().during(Duration.ofMillis(1500))
                .atMost(Duration.ofSeconds(5))
                .until(() -> archive.status().commits().files() == 0);

        clock.advance(Duration.ofMillis(100));
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(
                        () -> assertThat(archive.status().commits().files()).isEqualTo(1));
        assertThat(parquetFiles())
                .singleElement()
                .extracting(f -> f.getFileName().toString(), as(InstanceOfAssertFactories.STRING))
                .startsWith("part-20261129T191735000-" + archive.instanceId() + "-");
        assertThat(archive.status().commits().lastAt()).isEqualTo(clock.instant());

        // the entry is released; its spool segment is sealed once quiet for 5 s by the clock, and deleted,
        // and its message id is recorded in the de-duplication index's file of the clock's hour
        clock.advance(Duration.ofSeconds(10));
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(archive.spoolPath().resolve("dedup/20261129T19.log"))
                        .isNotEmptyFile());
        take(message);
        assertThat(archive.status().spool().duplicates()).isEqualTo(1);
    }

    @Test
    void aSecondStartAtTheSameInstantNeverReplacesTheFilesOfTheFirst() throws Exception {
        // a clock set back (or a fast restart within one millisecond) names the second start's files as the first's
        MutableClock clock = MutableClock.at("2026-11-29T19:17:35Z");
        List<String> ids = new ArrayList<>();
        for (int start = 1; start <= 2; start++) {
            archive = ParquetArchive.builder(ArchiveOptions.defaults(dir), decoder)
                    .clock(clock)
                    .open();
            ReceivedMessage message = received(Signal.SPANS, NemoLensRequests.spans(9, "run-a", 0, start));
            ids.add(message.info().messageId());
            take(message);
            archive.commitNow();
            archive.close();
            archive = null;
        }
        assertThat(parquetFiles()).hasSize(2);
        try (ArchiveReader reader = new ArchiveReader(dir)) {
            assertThat(reader.query("SELECT _message_id, count(*) AS n FROM %s GROUP BY 1 ORDER BY 1", "spans"))
                    .as("each start's rows, once")
                    .containsExactlyInAnyOrder(
                            Map.of("_message_id", ids.get(0), "n", 9L), Map.of("_message_id", ids.get(1), "n", 9L));
        }
    }

    @Test
    void temporaryFilesOfStoppedInstancesAreRemovedAtStartAndThoseOfLiveOnesKept() throws Exception {
        ParquetArchive live = ParquetArchive.builder(
                        ArchiveOptions.builder(dir)
                                .spoolPath(dir.resolve(".spool-live"))
                                .build(),
                        decoder)
                .open();
        try {
            Path partition = Files.createDirectories(dir.resolve("spans/date=2026-11-29/run_id=r"));
            Files.createDirectories(dir.resolve(".instances"));
            Files.writeString(dir.resolve(".instances/deadbeef0000.lock"), "");
            Path dead =
                    Files.writeString(partition.resolve(".part-20261129T000000-deadbeef0000-000001.parquet.tmp"), "x");
            Path alive = Files.writeString(
                    partition.resolve(".part-20261129T000000-" + live.instanceId() + "-000009.parquet.tmp"), "x");

            open(ArchiveOptions.defaults(dir));
            assertThat(dead).doesNotExist();
            assertThat(alive).exists();
            assertThat(dir.resolve(".instances/deadbeef0000.lock")).doesNotExist();
        } finally {
            live.close();
        }
    }

    /** The defaults with these limits. */
    private List<Path> parquetFiles() throws Exception {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".parquet"))
                    .sorted()
                    .toList();
        }
    }

    private List<Path> temporaryFiles() throws Exception {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".tmp")).toList();
        }
    }

    private static List<Long> longs(Object array) throws Exception {
        List<Long> out = new ArrayList<>();
        for (Object o : (Object[]) ((Array) array).getArray()) {
            out.add(((Number) o).longValue());
        }
        return out;
    }

    private static List<Double> doubles(Object array) throws Exception {
        List<Double> out = new ArrayList<>();
        for (Object o : (Object[]) ((Array) array).getArray()) {
            out.add(((Number) o).doubleValue());
        }
        return out;
    }
}
