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
import org.springframework.beans.factory.BeanRegistrar;
import org.springframework.beans.factory.BeanRegistry;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;

/** Handlers that remember every batch they were given, in a {@link Recorded} bean. */
@Configuration(proxyBeanMethods = false)
@Import(RecordingHandlers.Registrar.class)
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

    /** The lists, and one handler per signal adding each batch to its list: registered in code. */
    static final class Registrar implements BeanRegistrar {

        @Override
        public void register(BeanRegistry registry, Environment environment) {
            Recorded recorded = new Recorded();
            bean(registry, "recorded", Recorded.class, recorded);
            bean(registry, "recordingSpanHandler", SpanHandler.class, recorded.spans::add);
            bean(registry, "recordingMetricPointHandler", MetricPointHandler.class, recorded.metricPoints::add);
            bean(registry, "recordingLogHandler", LogHandler.class, recorded.logs::add);
            bean(registry, "recordingGpuSampleHandler", GpuSampleHandler.class, recorded.gpus::add);
            bean(registry, "recordingNodeSampleHandler", NodeSampleHandler.class, recorded.nodes::add);
        }

        private static <T> void bean(BeanRegistry registry, String name, Class<T> type, T bean) {
            registry.registerBean(name, type, spec -> spec.supplier(context -> bean));
        }
    }
}
