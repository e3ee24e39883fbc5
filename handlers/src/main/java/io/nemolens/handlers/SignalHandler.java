package io.nemolens.handlers;

import io.nemolens.handlers.record.TelemetryRecord;

/**
 * Receives decoded telemetry. Implement one of the per-signal interfaces ({@link SpanHandler},
 * {@link MetricPointHandler}, {@link LogHandler}, {@link GpuSampleHandler}, {@link NodeSampleHandler}) as a
 * Spring bean; the consumer finds it and calls it
 * once per AMQP message that carried records of that kind.
 *
 * <h2>What your outcome means</h2>
 * <ul>
 *   <li>Return normally: your work for this batch is done. The message is acknowledged once every
 *       handler for it has returned, and once every stage handed to {@link SignalBatch#acknowledgeAfter} (by
 *       a handler that buffers) and returned by a {@link MessageSink} has completed.</li>
 *   <li>Throw any exception: the batch is retried (the same batch, on the same thread, with backoff)
 *       up to {@code lens.consumer.handler-retry.max-attempts} times, then the message goes to the
 *       poison queue with your exception's class and message in its headers. Replay it once fixed.</li>
 *   <li>Throw {@link RejectBatchException}: the batch can never succeed; it goes to the poison queue at
 *       once, without retries.</li>
 *   <li>Throw {@link TransientHandlerException}: something outside the data is broken (a database is
 *       down). The message is never poisoned; it is retried with backoff until it succeeds or the
 *       consumer stops, in which case the broker redelivers it.</li>
 * </ul>
 *
 * <p>When several handlers want the same records they are called in {@code @Order}, each with the
 * same batch; a retry calls only the handlers that have not yet succeeded for it. Handlers are called
 * from several listener threads at once ({@code lens.consumer.concurrency}), so keep them thread-safe.
 * A message may be delivered more than once (at-least-once): {@link MessageInfo#messageId()} is
 * stable across redeliveries for de-duplication.
 *
 * @param <T> the record type
 */
@FunctionalInterface
public interface SignalHandler<T extends TelemetryRecord> {

    /**
     * Handles the records of one message.
     *
     * @param batch the records and the message they came from
     * @throws Exception to have the batch retried, or rejected (see the class documentation)
     */
    void handle(SignalBatch<T> batch) throws Exception;
}
