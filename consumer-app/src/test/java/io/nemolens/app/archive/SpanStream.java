package io.nemolens.app.archive;

import io.nemolens.decode.MessageIds;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.testing.BrokerClient;
import io.nemolens.testing.TestTopology;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Messages of spans published on a thread of their own, as a collector streams them, on the test broker's own
 * connection: message {@code i} holds {@code spansPerMessage} spans of run {@code <prefix><i % runs>}, and none is
 * published while the queue holds more than {@code maxReady} ready messages (a stream, not a backlog).
 */
final class SpanStream implements AutoCloseable {

    private static final long READY_POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    private final ExecutorService executor = Executors.newSingleThreadExecutor();
    private final Set<String> ids = ConcurrentHashMap.newKeySet();
    private final AtomicInteger published = new AtomicInteger();
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final Future<?> publishing;

    /**
     * Starts publishing: at least {@code minMessages} (then until {@link #finish} is called), at most
     * {@code maxMessages}, {@code pause} apart.
     */
    SpanStream(
            TestTopology topology,
            String runPrefix,
            int runs,
            int spansPerMessage,
            int minMessages,
            int maxMessages,
            int maxReady,
            Duration pause) {
        this.publishing = executor.submit(() -> {
            try (BrokerClient own = new BrokerClient()) {
                for (int i = 0; i < maxMessages && !(stopping.get() && i >= minMessages); i++) {
                    while (own.messageCount(topology.queue()) > maxReady) {
                        LockSupport.parkNanos(READY_POLL_NANOS);
                    }
                    byte[] body = NemoLensRequests.spans(spansPerMessage, runPrefix + (i % runs), i % 8, i)
                            .toByteArray();
                    ids.add(MessageIds.of(body));
                    own.publish(topology.exchange(), "otlp_spans", body);
                    published.incrementAndGet();
                    if (!pause.isZero()) {
                        LockSupport.parkNanos(pause.toNanos());
                    }
                }
            }
            return null;
        });
    }

    /** Messages published so far. */
    int published() {
        return published.get();
    }

    /** The ids of the messages published so far. */
    Set<String> ids() {
        return ids;
    }

    /** Stops publishing (once {@code minMessages} are out) and waits until the last message is confirmed. */
    int finish(Duration timeout) throws Exception {
        stopping.set(true);
        publishing.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        return published.get();
    }

    /** Stops the thread, if a test failed before {@link #finish}. */
    @Override
    public void close() {
        executor.shutdownNow();
    }
}
