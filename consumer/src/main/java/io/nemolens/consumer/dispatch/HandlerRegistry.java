package io.nemolens.consumer.dispatch;

import io.nemolens.handlers.GpuSampleHandler;
import io.nemolens.handlers.LogHandler;
import io.nemolens.handlers.MessageSink;
import io.nemolens.handlers.MetricPointHandler;
import io.nemolens.handlers.NodeSampleHandler;
import io.nemolens.handlers.SpanHandler;
import java.util.List;

/**
 * The handlers the application context holds, per record kind, in {@code @Order}.
 *
 * @param spanHandlers handlers of spans
 * @param metricPointHandlers handlers of metric points
 * @param logHandlers handlers of logs
 * @param gpuSampleHandlers handlers of dcgm-exporter samples
 * @param nodeSampleHandlers handlers of node-exporter samples
 * @param sinks what takes every message once its handlers succeeded (the archive), in {@code @Order}
 */
public record HandlerRegistry(
        List<SpanHandler> spanHandlers,
        List<MetricPointHandler> metricPointHandlers,
        List<LogHandler> logHandlers,
        List<GpuSampleHandler> gpuSampleHandlers,
        List<NodeSampleHandler> nodeSampleHandlers,
        List<MessageSink> sinks) {

    public HandlerRegistry {
        spanHandlers = List.copyOf(spanHandlers);
        metricPointHandlers = List.copyOf(metricPointHandlers);
        logHandlers = List.copyOf(logHandlers);
        gpuSampleHandlers = List.copyOf(gpuSampleHandlers);
        nodeSampleHandlers = List.copyOf(nodeSampleHandlers);
        sinks = List.copyOf(sinks);
    }

    /** Handlers of spans, metric points and logs only. */
    public HandlerRegistry(
            List<SpanHandler> spanHandlers,
            List<MetricPointHandler> metricPointHandlers,
            List<LogHandler> logHandlers) {
        this(spanHandlers, metricPointHandlers, logHandlers, List.of(), List.of(), List.of());
    }

    /** How many handlers and sinks there are in all. */
    public int size() {
        return spanHandlers.size()
                + metricPointHandlers.size()
                + logHandlers.size()
                + gpuSampleHandlers.size()
                + nodeSampleHandlers.size()
                + sinks.size();
    }
}
