package io.nemolens.poison;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.GetResponse;
import io.nemolens.consumer.metrics.LensMetrics;
import io.nemolens.consumer.poison.PoisonHeaders;
import io.nemolens.topology.ConfirmedPublisher;
import io.nemolens.topology.PublishException;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;

/**
 * Moves poison messages back to where they were first published, or to the parking lot when they have
 * come back too often. For every message that is in the poison queue when the replay starts (never
 * those that arrive meanwhile, such as replayed messages that fail again):
 *
 * <ol>
 *   <li>delivered so often that returning it again could reach the poison queue's {@code x-delivery-limit},
 *       where the broker would drop it: parked, whether selected or not;</li>
 *   <li>not selected (filters, an input failure not asked for, over {@code max}): left in place, in order;</li>
 *   <li>replayed {@code maxReplays} times already: republished to the parking-lot queue (through the
 *       dead-letter exchange, routed by the parking lot's name);</li>
 *   <li>otherwise: republished to its original exchange and routing key with its body and properties,
 *       {@code x-lens-replay-count} incremented, {@code x-lens-first-failed-at} kept, the failure headers
 *       of the last failure removed.</li>
 * </ol>
 *
 * <p>Every republish is {@code mandatory} and waits for the broker's publisher confirm; only then is the
 * poison message acknowledged. A republish that is nacked, returned as unroutable, refused (exchange
 * deleted) or not confirmed in time leaves the message in the poison queue and counts as failed. A
 * crash between confirm and acknowledgement replays a message twice (at-least-once), never zero times.
 * See {@link QueueWalk} for how the messages left in place keep their order.
 */
public final class PoisonReplayer {

    private static final Logger log = LoggerFactory.getLogger(PoisonReplayer.class);

    /** Headers describing the last failure; a replayed message gets fresh ones if it fails again. */
    static final Set<String> DROPPED_ON_REPLAY = Set.of(
            PoisonHeaders.EXCEPTION_MESSAGE,
            PoisonHeaders.EXCEPTION_STACKTRACE,
            PoisonHeaders.EXCEPTION_CLASS,
            PoisonHeaders.FAILURE_CATEGORY,
            PoisonHeaders.FAILED_AT,
            PoisonHeaders.CONSUMER_HOST,
            PoisonHeaders.ATTEMPTS,
            PoisonHeaders.SIGNAL,
            PoisonHeaders.ENCODING,
            "x-death",
            "x-delivery-count",
            "x-first-death-exchange",
            "x-first-death-queue",
            "x-first-death-reason",
            "x-last-death-exchange",
            "x-last-death-queue",
            "x-last-death-reason");

    private final ConnectionFactory connectionFactory;
    private final ReplaySettings settings;
    private final String deadLetterExchange;
    private final String poisonQueue;
    private final String parkingLotQueue;
    private final int maxReplays;
    private final int inspectLimit;
    private final int deliveryLimit;
    private final Duration confirmTimeout;
    private final Clock clock;
    private final @Nullable LensMetrics metrics;
    private final @Nullable PoisonIndexWriter index;

    /**
     * @param settings the topology whose poison queue is read and the limits of a replay
     * @param clock when messages are parked, for their {@code x-lens-parked-at}
     * @param metrics where replay results are counted, or {@code null}
     * @param index where every message moved, and every run, is recorded (the poison index), or {@code null}
     */
    public PoisonReplayer(
            ConnectionFactory connectionFactory,
            ReplaySettings settings,
            Clock clock,
            @Nullable LensMetrics metrics,
            @Nullable PoisonIndexWriter index) {
        this.connectionFactory = connectionFactory;
        this.settings = settings;
        this.deadLetterExchange = settings.topology().deadLetterExchangeName();
        this.poisonQueue = settings.topology().poisonQueueName();
        this.parkingLotQueue = settings.topology().parkingLotQueueName();
        this.maxReplays = settings.maxReplays();
        this.inspectLimit = settings.inspectLimit();
        this.deliveryLimit = settings.topology().deliveryLimit();
        this.confirmTimeout = settings.confirmTimeout();
        this.clock = clock;
        this.metrics = metrics;
        this.index = index;
    }

    /** Where and within which limits this replayer moves messages. */
    public ReplaySettings settings() {
        return settings;
    }

    /** Replays what the request selects; returns what happened to each examined message. */
    public ReplaySummary replay(ReplayRequest request) throws IOException {
        return move(request, Disposition.REPLAY, "command line or actuator");
    }

    /**
     * Replays, parks or discards what the request selects (the delivery-limit guard parks a message
     * close to the limit whatever the disposition; the loop guard of {@code maxReplays} applies to
     * replays). Each message moved is recorded in the poison index as {@code actor}'s doing, and so is
     * the run.
     */
    public ReplaySummary move(ReplayRequest request, Disposition disposition, String actor) throws IOException {
        Run run = new Run(request, disposition, actor);
        try {
            QueueWalk.Result result = QueueWalk.walk(connectionFactory, poisonQueue, inspectLimit, run::visit);
            ReplaySummary summary = run.summary(result.examined());
            log.info(
                    "poison {} from '{}' by {}: {}",
                    disposition.name().toLowerCase(Locale.ROOT),
                    poisonQueue,
                    actor,
                    summary.line());
            if (metrics != null && !request.dryRun()) {
                metrics.replays("replayed", summary.replayed());
                metrics.replays("skipped", summary.skipped());
                metrics.replays("parked", summary.parked());
                metrics.replays("failed", summary.failed());
            }
            if (index != null && !request.dryRun()) {
                index.action(actor, disposition.name().toLowerCase(Locale.ROOT), describe(request), summary);
            }
            return summary;
        } finally {
            run.close();
        }
    }

    /**
     * What {@link #move} would do with these messages (read from the poison index, not the queue), without
     * touching the queue: the same decisions, except that delivery counts, which only the queue knows,
     * are taken as 0.
     */
    public ReplaySummary preview(List<PoisonMessage> messages, ReplayRequest request, Disposition disposition) {
        ReplayRequest dry = new ReplayRequest(
                request.max(),
                request.routingKey(),
                request.category(),
                request.reasonContains(),
                request.includeInputFailures(),
                true,
                request.ratePerSecond(),
                request.keys());
        Run run = new Run(dry, disposition, "preview");
        try {
            int position = 0;
            for (PoisonMessage message : messages) {
                run.decide(++position, message);
            }
            return run.summary(messages.size());
        } finally {
            run.close();
        }
    }

    private static String describe(ReplayRequest request) {
        List<String> parts = new ArrayList<>();
        if (!request.keys().isEmpty()) {
            // what it touched: the message ids (the part of a key before its failure time)
            String ids = request.keys().stream()
                    .sorted()
                    .limit(10)
                    .map(k -> k.substring(0, Math.min(12, k.indexOf('@') < 0 ? k.length() : k.indexOf('@'))))
                    .collect(Collectors.joining(" "));
            parts.add(request.keys().size() + " selected message(s): " + ids
                    + (request.keys().size() > 10 ? " ..." : ""));
        }
        if (request.routingKey() != null) {
            parts.add("routing key " + request.routingKey());
        }
        if (request.category() != null) {
            parts.add("category " + request.category());
        }
        if (request.reasonContains() != null) {
            parts.add("reason containing '" + request.reasonContains() + "'");
        }
        if (request.max() > 0) {
            parts.add("at most " + request.max());
        }
        if (request.ratePerSecond() > 0) {
            parts.add(request.ratePerSecond() + "/s");
        }
        return parts.isEmpty() ? "every replayable message" : String.join(", ", parts);
    }

    /** One run: counts, the confirmed publisher, the pace. */
    private final class Run {
        private final ReplayRequest request;
        private final Disposition disposition;
        private final String actor;
        private final long nanosPerMessage;
        private long nextPublishAt = System.nanoTime();
        private @Nullable ConfirmedPublisher publisher;
        int selected;
        int replayed;
        int skipped;
        int parked;
        int discarded;
        int failed;
        final Set<String> failures = new LinkedHashSet<>();

        Run(ReplayRequest request, Disposition disposition, String actor) {
            this.request = request;
            this.disposition = disposition;
            this.actor = actor;
            this.nanosPerMessage =
                    request.ratePerSecond() > 0 ? (long) (TimeUnit.SECONDS.toNanos(1) / request.ratePerSecond()) : 0;
        }

        ReplaySummary summary(int examined) {
            return new ReplaySummary(
                    request.dryRun(), examined, replayed, skipped, parked, failed, List.copyOf(failures), discarded);
        }

        /** What becomes of one message; counts it, and for a dry run stops there. */
        private Outcome decide(int position, PoisonMessage message) {
            if (QueueWalk.nearDeliveryLimit(message.deliveryCount(), deliveryLimit)) {
                return counted(Outcome.park("delivered " + message.deliveryCount() + " times; the poison queue's "
                        + "x-delivery-limit of " + deliveryLimit + " would make the broker drop it"));
            }
            if (!request.matches(message)
                    || !request.allows(message)
                    || (request.max() > 0 && selected >= request.max())) {
                skipped++;
                return Outcome.SKIP;
            }
            selected++;
            if (disposition == Disposition.DISCARD) {
                return counted(Outcome.DISCARD);
            }
            if (disposition == Disposition.PARK) {
                return counted(Outcome.park("parked by " + actor));
            }
            if (message.replayCount() >= maxReplays) {
                return counted(Outcome.park("replayed " + message.replayCount() + " times (lens.poison.max-replays="
                        + maxReplays + ") and failed again"));
            }
            if (message.exchange().isEmpty() && message.routingKey().isEmpty()) {
                fail("message at position " + position + " has no original exchange or routing key");
                return Outcome.SKIP;
            }
            return counted(Outcome.REPLAY);
        }

        /** A dry run counts what would happen here; a real run counts once the move is confirmed. */
        private Outcome counted(Outcome outcome) {
            if (request.dryRun()) {
                tally(outcome.kind);
                return Outcome.SKIP;
            }
            return outcome;
        }

        private void tally(Kind kind) {
            switch (kind) {
                case REPLAY -> replayed++;
                case PARK -> parked++;
                case DISCARD -> discarded++;
                case SKIP -> skipped++;
            }
        }

        boolean visit(int position, GetResponse response) {
            PoisonMessage message = PoisonMessage.of(position, response.getProps(), response.getBody());
            Outcome outcome = decide(position, message);
            boolean moved = switch (outcome.kind) {
                case SKIP -> false;
                case DISCARD -> true;
                case PARK ->
                    confirmed(
                            deadLetterExchange,
                            parkingLotQueue,
                            () -> parkedProperties(response.getProps(), outcome.reason),
                            response.getBody(),
                            "park to '" + parkingLotQueue + "'");
                case REPLAY ->
                    confirmed(
                            message.exchange(),
                            message.routingKey(),
                            () -> replayProperties(response.getProps(), message),
                            response.getBody(),
                            "replay to exchange '" + message.exchange() + "' with routing key '" + message.routingKey()
                                    + "'");
            };
            if (moved) {
                tally(outcome.kind);
                if (index != null) {
                    Disposition done = outcome.kind == Kind.PARK
                            ? Disposition.PARK
                            : outcome.kind == Kind.DISCARD ? Disposition.DISCARD : Disposition.REPLAY;
                    index.removed(message.key(), done, actor);
                }
            }
            return moved;
        }

        /**
         * Publishes at the run's pace (the properties made once it is time) and waits for the confirm; a move
         * that is not confirmed counts as failed, {@code what} naming it in the reason.
         */
        private boolean confirmed(
                String exchange, String routingKey, Supplier<AMQP.BasicProperties> props, byte[] body, String what) {
            pace();
            try {
                if (publisher == null) {
                    publisher = new ConfirmedPublisher(connectionFactory, confirmTimeout, 1);
                }
                publisher.publishAndWait(exchange, routingKey, props.get(), body);
                return true;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("replay interrupted", e);
            } catch (PublishException e) {
                fail(what + " not confirmed: " + e.getMessage());
                return false;
            }
        }

        private void fail(String why) {
            failed++;
            if (failures.size() < 10) {
                failures.add(why);
            }
        }

        private void pace() {
            if (nanosPerMessage == 0) {
                return;
            }
            long wait = nextPublishAt - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            nextPublishAt = Math.max(nextPublishAt, System.nanoTime()) + nanosPerMessage;
        }

        void close() {
            if (publisher != null) {
                publisher.close();
            }
        }
    }

    private enum Kind {
        SKIP,
        REPLAY,
        PARK,
        DISCARD
    }

    /** One message's fate; {@code reason} only for parking. */
    private record Outcome(Kind kind, String reason) {
        static final Outcome SKIP = new Outcome(Kind.SKIP, "");
        static final Outcome REPLAY = new Outcome(Kind.REPLAY, "");
        static final Outcome DISCARD = new Outcome(Kind.DISCARD, "");

        static Outcome park(String reason) {
            return new Outcome(Kind.PARK, reason);
        }
    }

    private AMQP.BasicProperties replayProperties(AMQP.BasicProperties original, PoisonMessage message) {
        Map<String, Object> headers = new HashMap<>();
        if (original.getHeaders() != null) {
            original.getHeaders().forEach((k, v) -> {
                if (!DROPPED_ON_REPLAY.contains(k)) {
                    headers.put(k, v);
                }
            });
        }
        headers.put(PoisonHeaders.ORIGINAL_EXCHANGE, message.exchange());
        headers.put(PoisonHeaders.ORIGINAL_ROUTING_KEY, message.routingKey());
        headers.put(PoisonHeaders.REPLAY_COUNT, message.replayCount() + 1);
        if (message.firstFailedAt() != null) {
            headers.put(PoisonHeaders.FIRST_FAILED_AT, message.firstFailedAt().toString());
        }
        return original.builder().headers(headers).build();
    }

    private AMQP.BasicProperties parkedProperties(AMQP.BasicProperties original, String reason) {
        Map<String, Object> headers = new HashMap<>();
        if (original.getHeaders() != null) {
            headers.putAll(original.getHeaders());
        }
        headers.remove("x-delivery-count");
        headers.put(PoisonHeaders.PARKED_AT, clock.instant().toString());
        headers.put(PoisonHeaders.PARKED_REASON, reason);
        return original.builder().headers(headers).build();
    }
}
