package io.nemolens.benchmarks;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import com.rabbitmq.client.ShutdownSignalException;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.AnyValue;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import org.apache.avro.Schema;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.parquet.avro.AvroParquetWriter;
import org.apache.parquet.conf.PlainParquetConfiguration;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.metadata.CompressionCodecName;
import org.apache.parquet.io.LocalOutputFile;
import org.jspecify.annotations.Nullable;

/**
 * Issue 20's yardstick, the bare prototype a first attempt would be: two AMQP channels with a thread each,
 * prefetch 100, each decoding {@code ExportTraceServiceRequest} with protobuf-java and writing one Avro
 * {@link GenericRecord} per span through parquet-avro into one zstd Parquet file per thread (the 13 columns of
 * {@link #SCHEMA}), acknowledging every 50th message (multiple) right after its rows are handed to the writer.
 * No spool, no fsync, no de-duplication, no partitioning by run; the files are closed at the end, after the
 * remainder (fewer than 50 per channel) is acknowledged.
 *
 * <p>Each channel has a connection of its own whose consumer work runs on a single-thread executor of its own
 * ({@code lens-prototype-1}, {@code -2}), so that each channel's deliveries, its writer and its final close run
 * on one thread. The Parquet writer is parquet-avro's, built on an {@link LocalOutputFile} with a plain
 * (Hadoop-free) configuration and parquet-avro's defaults otherwise (128 MB row groups, 1 MB pages,
 * dictionaries); zstd at Parquet's default level, 3 (the service's default is 1), on zstd-jni rather than
 * through Parquet's codec factory, which needs Hadoop at run time ({@link PrototypeZstd}).
 */
final class BarePrototype {

    /** Unacknowledged messages the broker hands each channel. */
    static final int PREFETCH = 100;

    /** Every this many messages a channel acknowledges (multiple) the messages up to that one. */
    static final int ACK_EVERY = 50;

    /** Channels, each with a thread and a file. */
    static final int CHANNELS = 2;

    /** The zstd level: Parquet's default ({@code parquet.compression.codec.zstd.level}). */
    static final int ZSTD_LEVEL = 3;

    private static final Schema TRACE_ID = Schema.createFixed("trace_id", null, null, 16);
    private static final Schema SPAN_ID = Schema.createFixed("span_id", null, null, 8);
    private static final Schema STRING_MAP = SchemaBuilder.map().values().stringType();

    /** The 13 columns. */
    static final Schema SCHEMA = SchemaBuilder.record("span")
            .namespace("io.nemolens.benchmarks.prototype")
            .fields()
            .name("trace_id")
            .type(TRACE_ID)
            .noDefault()
            .name("span_id")
            .type(SPAN_ID)
            .noDefault()
            .optionalBytes("parent_span_id")
            .requiredString("name")
            .requiredInt("kind")
            .requiredLong("start_time_unix_nano")
            .requiredLong("end_time_unix_nano")
            .requiredLong("duration_nanos")
            .requiredInt("status_code")
            .requiredString("service_name")
            .optionalString("run_id")
            .name("resource_attributes")
            .type(STRING_MAP)
            .noDefault()
            .name("attributes")
            .type(STRING_MAP)
            .noDefault()
            .endRecord();

    private static final int TRACE_ID_FIELD = SCHEMA.getField("trace_id").pos();
    private static final int SPAN_ID_FIELD = SCHEMA.getField("span_id").pos();
    private static final int PARENT_SPAN_ID_FIELD =
            SCHEMA.getField("parent_span_id").pos();
    private static final int NAME_FIELD = SCHEMA.getField("name").pos();
    private static final int KIND_FIELD = SCHEMA.getField("kind").pos();
    private static final int START_FIELD =
            SCHEMA.getField("start_time_unix_nano").pos();
    private static final int END_FIELD = SCHEMA.getField("end_time_unix_nano").pos();
    private static final int DURATION_FIELD = SCHEMA.getField("duration_nanos").pos();
    private static final int STATUS_FIELD = SCHEMA.getField("status_code").pos();
    private static final int SERVICE_FIELD = SCHEMA.getField("service_name").pos();
    private static final int RUN_ID_FIELD = SCHEMA.getField("run_id").pos();
    private static final int RESOURCE_ATTRIBUTES_FIELD =
            SCHEMA.getField("resource_attributes").pos();
    private static final int ATTRIBUTES_FIELD = SCHEMA.getField("attributes").pos();

    private static final long TIMEOUT_NANOS = 300_000_000_000L;

    private BarePrototype() {}

    /**
     * One run: consumes {@code messages} messages from {@code queue} (which holds at least that many) and
     * returns when every one is acknowledged and both files are closed.
     *
     * @param folder where the files go ({@code part-1.parquet}, {@code part-2.parquet}); it exists
     */
    static Result run(ConnectionFactory factory, String queue, int messages, Path folder) throws Exception {
        AtomicLong handled = new AtomicLong();
        AtomicReference<@Nullable Throwable> failure = new AtomicReference<>();
        List<ExecutorService> threads = new ArrayList<>();
        List<Connection> connections = new ArrayList<>();
        List<ChannelConsumer> consumers = new ArrayList<>();
        try {
            for (int i = 1; i <= CHANNELS; i++) {
                String name = "lens-prototype-" + i;
                ExecutorService thread = Executors.newSingleThreadExecutor(r -> new Thread(r, name));
                threads.add(thread);
                Connection connection = factory.newConnection(thread, name);
                connections.add(connection);
                Channel channel = connection.createChannel();
                channel.basicQos(PREFETCH);
                consumers.add(new ChannelConsumer(
                        channel, folder.resolve("part-" + i + ".parquet"), messages, handled, failure));
            }
            // the clock starts when consuming does; it stops when every message is acknowledged and every
            // file closed
            long t0 = System.nanoTime();
            for (ChannelConsumer c : consumers) {
                c.getChannel().basicConsume(queue, false, c);
            }
            while (handled.get() < messages) {
                Throwable failed = failure.get();
                if (failed != null) {
                    throw new IllegalStateException("the bare prototype failed", failed);
                }
                if (System.nanoTime() - t0 > TIMEOUT_NANOS) {
                    throw new IllegalStateException(
                            "the bare prototype handled " + handled.get() + " of " + messages + " in 5 minutes");
                }
                Thread.sleep(1);
            }
            // the end of the stream: each thread acknowledges its remainder and closes its file
            List<Future<?>> finishing = new ArrayList<>();
            for (int i = 0; i < CHANNELS; i++) {
                finishing.add(threads.get(i).submit(consumers.get(i)::finish));
            }
            for (Future<?> f : finishing) {
                try {
                    f.get(TIMEOUT_NANOS, TimeUnit.NANOSECONDS);
                } catch (ExecutionException e) {
                    throw new IllegalStateException("the bare prototype failed to finish", e.getCause());
                }
            }
            long t1 = System.nanoTime();
            if (handled.get() != messages) {
                throw new IllegalStateException("the bare prototype handled " + handled.get() + " messages, not "
                        + messages + ": the queue held more than it was told");
            }
            long spans = 0;
            int finalAcks = 0;
            List<Long> steady = new ArrayList<>();
            long finalMax = 0;
            List<Long> sizes = new ArrayList<>();
            for (ChannelConsumer c : consumers) {
                spans += c.rows;
                finalAcks += c.finalLatencies.size();
                steady.addAll(c.steadyLatencies);
                for (long l : c.finalLatencies) {
                    finalMax = Math.max(finalMax, l);
                }
                if (Files.exists(c.file)) {
                    sizes.add(Files.size(c.file));
                }
            }
            return new Result(
                    messages,
                    spans,
                    (t1 - t0) / 1e9,
                    steady.stream().mapToLong(Long::longValue).sorted().toArray(),
                    finalAcks,
                    finalMax,
                    sizes.stream().mapToLong(Long::longValue).sorted().toArray());
        } finally {
            // the channels first (a failed run's unacknowledged messages go back to the queue): closing one hands its
            // consumer's last callbacks to its thread, which the connection's close would otherwise wait for; then
            // the connections, the threads once idle, and what a failed run left open
            for (ChannelConsumer c : consumers) {
                closeQuietly(c.getChannel());
            }
            for (Connection c : connections) {
                c.abort(10_000);
            }
            for (ExecutorService t : threads) {
                t.shutdown();
            }
            for (ExecutorService t : threads) {
                if (!t.awaitTermination(10, TimeUnit.SECONDS)) {
                    t.shutdownNow();
                }
            }
            for (ChannelConsumer c : consumers) {
                c.closeQuietly();
            }
        }
    }

    private static void closeQuietly(Channel channel) {
        if (!channel.isOpen()) {
            return;
        }
        try {
            channel.close();
        } catch (IOException | TimeoutException | ShutdownSignalException e) {
            // closed meanwhile, or the broker is gone: its messages go back to the queue all the same
        }
    }

    /**
     * One run's figures.
     *
     * @param seconds from the start of consuming until every message is acknowledged and both files closed
     * @param steadyAckNanos sorted: per message acknowledged by a 50th message's acknowledgement, the time from
     *     its delivery to the consumer's thread to that {@code basic.ack}
     * @param finalAcks messages acknowledged at the end of the stream (fewer than 50 per channel)
     * @param finalAckMaxNanos the longest time one of them waited from its delivery to that acknowledgement
     * @param fileBytes the files' sizes, sorted
     */
    record Result(
            int messages,
            long spans,
            double seconds,
            long[] steadyAckNanos,
            int finalAcks,
            long finalAckMaxNanos,
            long[] fileBytes) {

        double spansPerSecond() {
            return spans / seconds;
        }

        /** The {@code p} quantile (nearest rank) of the steady acknowledgements, in milliseconds; NaN for none. */
        double ackPercentileMillis(double p) {
            if (steadyAckNanos.length == 0) {
                return Double.NaN;
            }
            int rank = (int) Math.ceil(p * steadyAckNanos.length);
            return steadyAckNanos[Math.max(0, Math.min(steadyAckNanos.length - 1, rank - 1))] / 1e6;
        }

        int files() {
            return fileBytes.length;
        }

        long bytes() {
            return Arrays.stream(fileBytes).sum();
        }

        double medianFileBytes() {
            long[] s = fileBytes;
            if (s.length == 0) {
                return 0;
            }
            return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2.0;
        }
    }

    /** One channel: its deliveries, its writer, its acknowledgements, all on its connection's one thread. */
    private static final class ChannelConsumer extends DefaultConsumer {
        private final Path file;
        private final AtomicLong handled;
        private final AtomicReference<@Nullable Throwable> failure;
        private final long[] pendingReceived = new long[ACK_EVERY];
        private final List<Long> steadyLatencies;
        private final List<Long> finalLatencies = new ArrayList<>();
        private @Nullable ParquetWriter<GenericRecord> writer;
        private int pending;
        private long lastTag;
        private long rows;

        ChannelConsumer(
                Channel channel,
                Path file,
                int messages,
                AtomicLong handled,
                AtomicReference<@Nullable Throwable> failure) {
            super(channel);
            this.file = file;
            this.handled = handled;
            this.failure = failure;
            this.steadyLatencies = new ArrayList<>(messages);
        }

        @Override
        public void handleDelivery(String consumerTag, Envelope envelope, AMQP.BasicProperties properties, byte[] body)
                throws IOException {
            long received = System.nanoTime();
            try {
                ParquetWriter<GenericRecord> w = writer;
                if (w == null) {
                    w = open(file);
                    writer = w;
                }
                rows += write(ExportTraceServiceRequest.parseFrom(body), w);
                pendingReceived[pending++] = received;
                lastTag = envelope.getDeliveryTag();
                if (pending == ACK_EVERY) {
                    getChannel().basicAck(lastTag, true);
                    long now = System.nanoTime();
                    for (int i = 0; i < pending; i++) {
                        steadyLatencies.add(now - pendingReceived[i]);
                    }
                    pending = 0;
                }
                handled.incrementAndGet();
            } catch (IOException | RuntimeException | Error e) {
                // the client would log it and close the channel: the run ends with it
                failure.compareAndSet(null, e);
                throw e;
            }
        }

        /** The end of the stream, on this channel's thread: acknowledges the remainder and closes the file. */
        void finish() {
            try {
                if (pending > 0) {
                    getChannel().basicAck(lastTag, true);
                    long now = System.nanoTime();
                    for (int i = 0; i < pending; i++) {
                        finalLatencies.add(now - pendingReceived[i]);
                    }
                    pending = 0;
                }
                ParquetWriter<GenericRecord> w = writer;
                if (w != null) {
                    writer = null;
                    w.close();
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }

        void closeQuietly() {
            ParquetWriter<GenericRecord> w = writer;
            writer = null;
            if (w != null) {
                try {
                    w.close();
                } catch (IOException | RuntimeException e) {
                    // a failed run: its exception is the one that counts
                }
            }
        }
    }

    /** parquet-avro's writer of {@link #SCHEMA} into a new file: zstd, everything else as it comes. */
    static ParquetWriter<GenericRecord> open(Path file) throws IOException {
        return AvroParquetWriter.<GenericRecord>builder(new LocalOutputFile(file))
                .withConf(new PlainParquetConfiguration())
                .withSchema(SCHEMA)
                .withDataModel(GenericData.get())
                .withCompressionCodec(CompressionCodecName.ZSTD)
                .withCodecFactory(PrototypeZstd.INSTANCE)
                .withWriteMode(ParquetFileWriter.Mode.CREATE)
                .build();
    }

    /** Writes one record per span of the request; returns how many. */
    static long write(ExportTraceServiceRequest request, ParquetWriter<GenericRecord> writer) throws IOException {
        long rows = 0;
        for (ResourceSpans rs : request.getResourceSpansList()) {
            Map<String, String> resourceAttributes = strings(rs.getResource().getAttributesList());
            String serviceName = resourceAttributes.getOrDefault("service.name", "");
            String runId = resourceAttributes.get("nemo.run.id");
            for (ScopeSpans ss : rs.getScopeSpansList()) {
                for (Span span : ss.getSpansList()) {
                    GenericData.Record r = new GenericData.Record(SCHEMA);
                    r.put(TRACE_ID_FIELD, new GenericData.Fixed(TRACE_ID, id(span.getTraceId(), 16, "trace id")));
                    r.put(SPAN_ID_FIELD, new GenericData.Fixed(SPAN_ID, id(span.getSpanId(), 8, "span id")));
                    r.put(
                            PARENT_SPAN_ID_FIELD,
                            span.getParentSpanId().isEmpty()
                                    ? null
                                    : span.getParentSpanId().asReadOnlyByteBuffer());
                    r.put(NAME_FIELD, span.getName());
                    r.put(KIND_FIELD, span.getKindValue());
                    r.put(START_FIELD, span.getStartTimeUnixNano());
                    r.put(END_FIELD, span.getEndTimeUnixNano());
                    r.put(DURATION_FIELD, span.getEndTimeUnixNano() - span.getStartTimeUnixNano());
                    r.put(STATUS_FIELD, span.getStatus().getCodeValue());
                    r.put(SERVICE_FIELD, serviceName);
                    r.put(RUN_ID_FIELD, runId);
                    r.put(RESOURCE_ATTRIBUTES_FIELD, resourceAttributes);
                    r.put(ATTRIBUTES_FIELD, strings(span.getAttributesList()));
                    writer.write(r);
                    rows++;
                }
            }
        }
        return rows;
    }

    private static byte[] id(ByteString id, int length, String what) throws InvalidProtocolBufferException {
        if (id.size() != length) {
            throw new InvalidProtocolBufferException(what + " of " + id.size() + " bytes, not " + length);
        }
        return id.toByteArray();
    }

    /** Attributes as strings: the last value of a repeated key wins. */
    private static Map<String, String> strings(List<KeyValue> attributes) {
        Map<String, String> out = new LinkedHashMap<>(attributes.size() * 2);
        for (KeyValue kv : attributes) {
            out.put(kv.getKey(), text(kv.getValue()));
        }
        return out;
    }

    /**
     * An attribute value as a string: a string as it is; a bool, int or double by {@code toString}; bytes in
     * lowercase hex; an array as {@code [a,b]} and a key-value list as {@code {k=v,k2=v2}}, recursively; a
     * string-table index (profiles only) as its number; an empty value as the empty string.
     */
    static String text(AnyValue v) {
        return switch (v.getValueCase()) {
            case STRING_VALUE -> v.getStringValue();
            case BOOL_VALUE -> Boolean.toString(v.getBoolValue());
            case INT_VALUE -> Long.toString(v.getIntValue());
            case DOUBLE_VALUE -> Double.toString(v.getDoubleValue());
            case BYTES_VALUE -> HexFormat.of().formatHex(v.getBytesValue().toByteArray());
            case ARRAY_VALUE ->
                v.getArrayValue().getValuesList().stream()
                        .map(BarePrototype::text)
                        .collect(Collectors.joining(",", "[", "]"));
            case KVLIST_VALUE ->
                v.getKvlistValue().getValuesList().stream()
                        .map(kv -> kv.getKey() + "=" + text(kv.getValue()))
                        .collect(Collectors.joining(",", "{", "}"));
            case STRING_VALUE_STRINDEX -> Integer.toString(v.getStringValueStrindex());
            case VALUE_NOT_SET -> "";
        };
    }
}
