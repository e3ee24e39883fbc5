package io.nemolens.app.testing;

import io.nemolens.handlers.GpuSampleHandler;
import io.nemolens.handlers.LogHandler;
import io.nemolens.handlers.MetricPointHandler;
import io.nemolens.handlers.NodeSampleHandler;
import io.nemolens.handlers.SignalBatch;
import io.nemolens.handlers.SpanHandler;
import io.nemolens.handlers.record.GpuSample;
import io.nemolens.handlers.record.LogEntry;
import io.nemolens.handlers.record.MetricPoint;
import io.nemolens.handlers.record.NodeSample;
import io.nemolens.handlers.record.Span;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Handlers that remember every batch they were given. */
@Configuration(proxyBeanMethods = false)
public class RecordingHandlers {

    /** Everything the handlers saw. */
    public static final class Recorded {
        public final List<SignalBatch<Span>> spans = new CopyOnWriteArrayList<>();
        public final List<SignalBatch<MetricPoint>> metricPoints = new CopyOnWriteArrayList<>();
        public final List<SignalBatch<LogEntry>> logs = new CopyOnWriteArrayList<>();
        public final List<SignalBatch<GpuSample>> gpus = new CopyOnWriteArrayList<>();
        public final List<SignalBatch<NodeSample>> nodes = new CopyOnWriteArrayList<>();

        public List<Span> allSpans() {
            return spans.stream().flatMap(b -> b.records().stream()).toList();
        }

        public List<MetricPoint> allMetricPoints() {
            return metricPoints.stream().flatMap(b -> b.records().stream()).toList();
        }

        public List<LogEntry> allLogs() {
            return logs.stream().flatMap(b -> b.records().stream()).toList();
        }

        public int batchCount() {
            return spans.size() + metricPoints.size() + logs.size();
        }
    }

    @Bean
    Recorded recorded() {
        return new Recorded();
    }

    @Bean
    SpanHandler recordingSpanHandler(Recorded recorded) {
        return recorded.spans::add;
    }

    @Bean
    MetricPointHandler recordingMetricPointHandler(Recorded recorded) {
        return recorded.metricPoints::add;
    }

    @Bean
    LogHandler recordingLogHandler(Recorded recorded) {
        return recorded.logs::add;
    }

    @Bean
    GpuSampleHandler recordingGpuSampleHandler(Recorded recorded) {
        return recorded.gpus::add;
    }

    @Bean
    NodeSampleHandler recordingNodeSampleHandler(Recorded recorded) {
        return recorded.nodes::add;
    }
}
