package io.nemolens.consumer.dispatch;

import io.nemolens.handlers.LogHandler;
import io.nemolens.handlers.MetricPointHandler;
import io.nemolens.handlers.SpanHandler;
import java.util.List;

/**
 * The handlers the application context holds, per record kind, in {@code @Order}.
 *
 * @param spanHandlers handlers of spans
 * @param metricPointHandlers handlers of metric points
 * @param logHandlers handlers of logs
 */
public record HandlerRegistry(List<SpanHandler> spanHandlers, List<MetricPointHandler> metricPointHandlers,
        List<LogHandler> logHandlers) {

    public HandlerRegistry {
        spanHandlers = List.copyOf(spanHandlers);
        metricPointHandlers = List.copyOf(metricPointHandlers);
        logHandlers = List.copyOf(logHandlers);
    }

    /** How many handlers there are in all. */
    public int size() {
        return spanHandlers.size() + metricPointHandlers.size() + logHandlers.size();
    }
}
