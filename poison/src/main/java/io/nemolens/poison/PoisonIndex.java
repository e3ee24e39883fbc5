package io.nemolens.poison;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.DefaultConsumer;
import com.rabbitmq.client.Envelope;
import io.nemolens.consumer.error.OutOfMemoryHalt;
import io.nemolens.consumer.scheduling.DaemonScheduler;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.context.SmartLifecycle;

/**
 * What is in the poison queue, known without reading it: the poison index stream read from its first
 * record (a stream is read without being consumed, so every instance, and every restart, reads all of
 * it) and kept in memory as the messages poisoned and not yet replayed, parked, discarded or found gone.
 * Records arrive as any instance appends them, so several instances see the same index.
 *
 * <p>It follows the stream on a channel of its own, and subscribes again after the connection comes
 * back, from the record after the last one it applied. At start it appends a {@code hello} record of
 * its own; once it has read that back it has read everything that was there ({@link #isCaughtUp()}).
 *
 * <p>Memory: each live message costs its {@link PoisonMessage} summary and a few strings (the body and
 * stack trace stay in the stream; {@link #record(long)} reads one record back by its offset).
 */
public final class PoisonIndex implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(PoisonIndex.class);
    private static final int PREFETCH = 500;
    private static final int MAX_ACTIONS = 500;
    private static final int RECORD_PREFETCH = 16;

    /**
     * One message in the poison queue, as its record describes it.
     *
     * @param key its poisoning ({@link PoisonMessage#key()})
     * @param offset the offset of its record in the stream
     * @param message the summary (position 0; delivery count 0: only the queue knows it)
     * @param signal the signal, or {@code null}
     * @param encoding the encoding, or {@code null}
     * @param runIds the run ids of its records, when it decoded
     */
    public record Entry(
            String key,
            long offset,
            PoisonMessage message,
            @Nullable String signal,
            @Nullable String encoding,
            List<String> runIds) {}

    /**
     * An operator's run, or a message's removal, as the action log shows it.
     *
     * @param at when
     * @param by who
     * @param action what ({@code replay}, {@code park}, {@code discard}, {@code index})
     * @param scope what it was asked to touch
     * @param summary what it did
     */
    public record ActionEntry(Instant at, String by, String action, String scope, String summary) {}

    private final ConnectionFactory connectionFactory;
    private final String stream;
    private final PoisonIndexWriter writer;
    private final Clock clock;
    private final String instance = UUID.randomUUID().toString();

    private final Map<String, Entry> live = new LinkedHashMap<>();
    private final Set<String> removed = new HashSet<>();
    private final Deque<ActionEntry> actions = new ArrayDeque<>();
    private long applied = -1;
    private @Nullable Instant changedAt;
    private boolean caughtUp;
    private boolean helloSent;
    private @Nullable String error = "not started";
    private @Nullable Channel channel;
    private @Nullable ScheduledExecutorService executor;

    /** @param clock what {@link #changedAt()} reads */
    public PoisonIndex(ConnectionFactory connectionFactory, String stream, PoisonIndexWriter writer, Clock clock) {
        this.connectionFactory = connectionFactory;
        this.stream = stream;
        this.writer = writer;
        this.clock = clock;
    }

    /** The stream's name. */
    public String stream() {
        return stream;
    }

    /** Whether everything in the stream when this instance started has been read. */
    public synchronized boolean isCaughtUp() {
        return caughtUp;
    }

    /** Why the index is not being read, or {@code null} while it is. */
    public synchronized @Nullable String error() {
        return error;
    }

    /** The messages in the poison queue by the index, oldest record first. */
    public synchronized List<Entry> entries() {
        return List.copyOf(live.values());
    }

    /** One message by its key. */
    public synchronized Optional<Entry> entry(String key) {
        return Optional.ofNullable(live.get(key));
    }

    /** How many messages the index holds. */
    public synchronized int size() {
        return live.size();
    }

    /**
     * When the messages it holds last changed (a message added or removed), or {@code null} if they never
     * did: a queue depth read before that instant cannot be compared with {@link #size()}.
     */
    public synchronized @Nullable Instant changedAt() {
        return changedAt;
    }

    /** The offset of the last record applied, -1 before the first. */
    public synchronized long appliedOffset() {
        return applied;
    }

    /** The earliest first-failure time of the messages the index holds. */
    public synchronized Optional<Instant> oldestFirstFailure() {
        Instant oldest = null;
        for (Entry e : live.values()) {
            Instant first = e.message().firstFailedAt() != null
                    ? e.message().firstFailedAt()
                    : e.message().lastFailedAt();
            if (first != null && (oldest == null || first.isBefore(oldest))) {
                oldest = first;
            }
        }
        return Optional.ofNullable(oldest);
    }

    /** The latest operator actions, newest first (at most 500). */
    public synchronized List<ActionEntry> actions() {
        return List.copyOf(actions);
    }

    /**
     * Reads back the record at this offset (body, headers, stack trace): a stream read from that offset,
     * which touches no message of the poison queue.
     */
    public IndexRecord record(long offset) throws IOException {
        CompletableFuture<IndexRecord> found = new CompletableFuture<>();
        Channel reader = QueueWalk.rawChannel(connectionFactory);
        try {
            reader.basicQos(RECORD_PREFETCH);
            reader.basicConsume(stream, false, Map.of("x-stream-offset", offset), new DefaultConsumer(reader) {
                @Override
                public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body)
                        throws IOException {
                    if (found.isDone()) {
                        return; // the channel is closing; what it still delivers is not needed
                    }
                    // a stream delivers whole chunks: records before the offset can come first; the
                    // acknowledgement only grants credit for more
                    reader.basicAck(envelope.getDeliveryTag(), false);
                    if (streamOffset(props) == offset) {
                        found.complete(PoisonIndexWriter.read(body));
                    } else if (streamOffset(props) > offset) {
                        found.completeExceptionally(new IOException("no record at offset " + offset));
                    }
                }
            });
            return found.get(5, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new IOException("could not read record " + offset + " of '" + stream + "': " + e.getCause(), e);
        } catch (TimeoutException e) {
            throw new IOException("record " + offset + " of '" + stream + "' not read within 5 s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } finally {
            QueueWalk.close(reader);
        }
    }

    /** Applies one record; public for tests that feed records without a broker. */
    synchronized void apply(long offset, IndexRecord record) {
        applied = Math.max(applied, offset);
        switch (record.type()) {
            case IndexRecord.POISONED -> {
                IndexRecord.Poisoned p = record.poisoned();
                String key = record.key();
                if (p != null && key != null && !removed.contains(key)) {
                    live.put(key, entry(key, offset, p));
                    changedAt = clock.instant();
                }
            }
            case IndexRecord.REMOVED -> {
                String key = record.key();
                if (key != null) {
                    removed.add(key);
                    if (live.remove(key) != null) {
                        changedAt = clock.instant();
                    }
                }
            }
            case IndexRecord.ACTION -> {
                IndexRecord.Action a = record.action();
                if (a != null) {
                    actions.addFirst(new ActionEntry(instant(record.at()), a.by(), a.action(), a.scope(), a.summary()));
                    if (actions.size() > MAX_ACTIONS) {
                        actions.removeLast();
                    }
                }
            }
            case IndexRecord.HELLO -> {
                if (instance.equals(record.instance()) && !caughtUp) {
                    caughtUp = true;
                    log.info(
                            "poison index '{}' read: {} message(s) in the poison queue by the index",
                            stream,
                            live.size());
                }
            }
            default -> log.debug("poison index: record of unknown type '{}' at {} ignored", record.type(), offset);
        }
    }

    private static Entry entry(String key, long offset, IndexRecord.Poisoned p) {
        PoisonMessage message = new PoisonMessage(
                0,
                p.messageId(),
                p.exchange(),
                p.routingKey(),
                p.category(),
                p.reason(),
                p.exceptionClass(),
                p.firstFailedAt() == null ? null : instant(p.firstFailedAt()),
                p.failedAt() == null ? null : instant(p.failedAt()),
                p.replayCount(),
                0,
                p.size());
        return new Entry(key, offset, message, p.signal(), p.encoding(), List.copyOf(p.runIds()));
    }

    private static Instant instant(String text) {
        try {
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            return Instant.EPOCH;
        }
    }

    static long streamOffset(AMQP.BasicProperties props) {
        Object offset = props.getHeaders() == null ? null : props.getHeaders().get("x-stream-offset");
        return offset instanceof Number n ? n.longValue() : -1;
    }

    @Override
    public synchronized void start() {
        if (executor != null) {
            return;
        }
        executor = DaemonScheduler.singleThread("lens-poison-index");
        var unused = executor.scheduleWithFixedDelay(
                OutOfMemoryHalt.guarded(this::follow, "the poison index reader"), 0, 2, TimeUnit.SECONDS);
    }

    /** Subscribes when there is no open subscription, and says hello until it went through. */
    private void follow() {
        try {
            Channel current;
            long from;
            synchronized (this) {
                current = channel;
                from = applied + 1;
            }
            if (current == null || !current.isOpen()) {
                subscribe(from);
            }
            boolean hello;
            synchronized (this) {
                hello = helloSent;
            }
            if (!hello) {
                writer.hello(instance);
                synchronized (this) {
                    helloSent = true;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            synchronized (this) {
                error = e.getMessage() == null ? e.toString() : e.getMessage();
            }
            log.debug("poison index '{}' not followed: {}", stream, e.toString());
        }
    }

    private void subscribe(long from) throws IOException {
        Channel next = QueueWalk.rawChannel(connectionFactory);
        next.basicQos(PREFETCH);
        Object offset = from == 0 ? "first" : (Object) from;
        next.basicConsume(stream, false, Map.of("x-stream-offset", offset), new DefaultConsumer(next) {
            @Override
            public void handleDelivery(String tag, Envelope envelope, AMQP.BasicProperties props, byte[] body)
                    throws IOException {
                long at = streamOffset(props);
                if (at > appliedOffset() || at < 0) {
                    try {
                        apply(at, PoisonIndexWriter.read(body));
                    } catch (RuntimeException e) {
                        log.warn(
                                "poison index: record at offset {} of '{}' unreadable, skipped: {}",
                                at,
                                stream,
                                e.toString());
                    }
                }
                next.basicAck(envelope.getDeliveryTag(), false);
            }
        });
        synchronized (this) {
            channel = next;
            error = null;
        }
        log.debug("poison index '{}' followed from offset {}", stream, offset);
    }

    @Override
    public synchronized void stop() {
        if (executor != null) {
            executor.shutdownNow();
            executor = null;
        }
        if (channel != null) {
            QueueWalk.close(channel);
            channel = null;
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return executor != null;
    }

    /** Every key the index holds. */
    synchronized Set<String> keys() {
        return new HashSet<>(live.keySet());
    }

    /** Every live entry whose record is at or before this offset. */
    synchronized List<Entry> entriesUpTo(long offset) {
        List<Entry> out = new ArrayList<>();
        for (Entry e : live.values()) {
            if (e.offset() <= offset) {
                out.add(e);
            }
        }
        return out;
    }
}
