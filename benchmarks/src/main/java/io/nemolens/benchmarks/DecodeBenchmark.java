package io.nemolens.benchmarks;

import com.google.protobuf.Message;
import io.nemolens.decode.DecodedMessage;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.decode.OtlpJsonReader;
import io.nemolens.decode.ProtobufRequests;
import io.nemolens.decode.reference.ProtoRecordMapper;
import io.nemolens.generator.CollectorJsonWriter;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.record.Span;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Decoding one NeMo Lens trace request ({@code spanCount} spans of about eight attributes each) into
 * records with {@link OtlpDecoder}, from protobuf and from collector-shaped OTLP/JSON: parsing, mapping
 * and record creation included. The score is requests per second; the {@code spans} secondary result
 * is spans per second (score × {@code spanCount}).
 *
 * <pre>java -jar benchmarks/target/benchmarks.jar DecodeBenchmark -f 1 -wi 3 -i 5 -w 2s -r 3s -t 1</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class DecodeBenchmark {

    /** Spans per request. */
    @Param("1024")
    public int spanCount;

    private final OtlpDecoder decoder = new OtlpDecoder();
    private ExportTraceServiceRequest request;
    private byte[] protobuf;
    private byte[] json;

    /**
     * Counts decoded spans, so JMH reports spans per second next to requests per second, and the CPU
     * time the benchmark thread used, so that on a shared machine spans per CPU-second (spans ÷
     * (cpuNanos ÷ 1e9), both as JMH reports them) gives the per-core figure even when the thread did
     * not have a core to itself.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class SpanCounter {
        private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

        /** Spans decoded in this iteration. */
        public long spans;
        /** CPU nanoseconds this thread used in this iteration. */
        public long cpuNanos;

        private long cpuAtStart;

        /** Clears the counts before each iteration. */
        @Setup(Level.Iteration)
        public void clear() {
            spans = 0;
            cpuNanos = 0;
            cpuAtStart = THREADS.getCurrentThreadCpuTime();
        }

        void decoded(int count) {
            spans += count;
            cpuNanos = THREADS.getCurrentThreadCpuTime() - cpuAtStart;
        }
    }

    /** Builds the request and encodes it both ways. */
    @Setup
    public void setUp() {
        protobuf = NemoLensRequests.spans(spanCount).toByteArray();
        request = (ExportTraceServiceRequest) ProtobufRequests.parse(Signal.SPANS, protobuf, 0, protobuf.length);
        json = CollectorJsonWriter.write(request);
        if (!decoder.decode(Signal.SPANS, json, null)
                .records()
                .spans()
                .equals(decoder.decode(Signal.SPANS, protobuf, null).records().spans())) {
            throw new IllegalStateException("protobuf and JSON decode differently");
        }
    }

    /** Decodes the protobuf body: spans are read straight from its bytes. */
    @Benchmark
    public DecodedMessage protobuf(SpanCounter counter) {
        DecodedMessage decoded = decoder.decode(Signal.SPANS, protobuf, null);
        counter.decoded(decoded.recordCount());
        return decoded;
    }

    /**
     * The way protobuf spans were decoded before issue 20's direct reader, for comparison in the same run:
     * protobuf-java's parse of the whole request, then the records from its object tree ({@link #protobufParseOnly}
     * plus {@link #mapOnly}).
     */
    @Benchmark
    public List<Span> protobufThroughRequest(SpanCounter counter) {
        return mapped(ProtobufRequests.parse(Signal.SPANS, protobuf, 0, protobuf.length), counter);
    }

    /** Only parses the protobuf body into the request (protobuf-java's generated parser), for comparison. */
    @Benchmark
    public Message protobufParseOnly() {
        return ProtobufRequests.parse(Signal.SPANS, protobuf, 0, protobuf.length);
    }

    /** Only maps the parsed request to records, for comparison: {@link #protobuf} less {@link #protobufParseOnly}. */
    @Benchmark
    public List<Span> mapOnly() {
        return ProtoRecordMapper.spans(request);
    }

    /** Only reads the OTLP/JSON body into the request, for comparison: the floor of {@link #otlpJson}. */
    @Benchmark
    public Message otlpJsonReadOnly() {
        return OtlpJsonReader.read(Signal.SPANS, json, 0, json.length);
    }

    /**
     * The way OTLP/JSON spans were decoded before issue 20's direct reader, for comparison in the same run: the
     * field-table reader into the protobuf request, then the records from it.
     */
    @Benchmark
    public List<Span> otlpJsonThroughRequest(SpanCounter counter) {
        return mapped(OtlpJsonReader.read(Signal.SPANS, json, 0, json.length), counter);
    }

    /** Decodes the OTLP/JSON body: spans are read straight from it. */
    @Benchmark
    public DecodedMessage otlpJson(SpanCounter counter) {
        DecodedMessage decoded = decoder.decode(Signal.SPANS, json, null);
        counter.decoded(decoded.recordCount());
        return decoded;
    }

    /** The records of a parsed request, counted. */
    private static List<Span> mapped(Message parsed, SpanCounter counter) {
        List<Span> spans = ProtoRecordMapper.spans((ExportTraceServiceRequest) parsed);
        counter.decoded(spans.size());
        return spans;
    }
}
