package com.example.lens;

import io.nemolens.handlers.SignalBatch;
import io.nemolens.handlers.SpanHandler;
import io.nemolens.handlers.record.Span;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/** Counts the training steps of each run that took longer than two seconds. */
@Component
public class SlowTrainStepHandler implements SpanHandler {

    private static final Logger log = LoggerFactory.getLogger(SlowTrainStepHandler.class);
    private static final long THRESHOLD_NANOS = Duration.ofSeconds(2).toNanos();

    private final Map<String, Long> slowStepsByRun = new ConcurrentHashMap<>();

    @Override
    public void handle(SignalBatch<Span> batch) {
        for (Span span : batch.records()) {
            if (span.name().equals("megatron.train_step") && span.durationNanos() > THRESHOLD_NANOS) {
                slowStepsByRun.merge(span.runId(), 1L, Long::sum);
                log.warn(
                        "slow step in run {} (rank {}): iteration {} took {} ms",
                        span.runId(),
                        span.resource().attributes().getText("dl.rank", "?"),
                        span.attributes().getLong("megatron.iteration"),
                        span.durationNanos() / 1_000_000);
            }
        }
    }

    /** Slow steps seen so far, by run id. */
    public Map<String, Long> slowStepsByRun() {
        return Map.copyOf(slowStepsByRun);
    }
}
