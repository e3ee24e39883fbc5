package io.nemolens.handlers;

import io.nemolens.handlers.record.Span;

/**
 * Receives spans. A minimal handler:
 *
 * <pre>{@code
 * @Component
 * class SlowStepHandler implements SpanHandler {
 *     public void handle(SignalBatch<Span> batch) {
 *         for (Span span : batch.records()) {
 *             if (span.name().equals("megatron.train_step") && span.durationNanos() > 2_000_000_000L) {
 *                 log.warn("slow step in run {}", span.runId());
 *             }
 *         }
 *     }
 * }
 * }</pre>
 */
@FunctionalInterface
public interface SpanHandler extends SignalHandler<Span> {}
