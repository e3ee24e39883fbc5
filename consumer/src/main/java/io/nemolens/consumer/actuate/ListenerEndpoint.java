package io.nemolens.consumer.actuate;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.nemolens.consumer.listener.LensMessageListener;
import io.nemolens.consumer.listener.ListenerSwitch;
import io.nemolens.consumer.metrics.LensMetrics;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The actuator endpoint {@code listener}: {@code GET /actuator/listener} says whether the listener consumes, since
 * when it is paused, its consumers, the messages it acknowledged and when it last processed one;
 * {@code POST /actuator/listener} with {@code {"running": false}} pauses it ({@link ListenerSwitch}: the messages in
 * hand are finished, the rest stay in the queue) and {@code {"running": true}} resumes it, answering the new state.
 * For maintenance (a broker or store being worked on, a backlog to hold back) and for the bench, which fills the
 * queue of README's jar while it is paused. Not exposed over HTTP unless added to
 * {@code management.endpoints.web.exposure.include}; read-only unless
 * {@code management.endpoint.listener.access=unrestricted}; every request needs HTTP Basic authentication, as every
 * endpoint but {@code health}, {@code info} and {@code prometheus}.
 */
@Endpoint(id = ListenerEndpoint.ID, defaultAccess = Access.READ_ONLY)
public class ListenerEndpoint {

    /** The endpoint's id: {@code /actuator/listener}. */
    public static final String ID = "listener";

    private final ListenerSwitch listenerSwitch;
    private final LensMessageListener listener;
    private final MeterRegistry meters;
    private final String queue;

    /**
     * The listener's state.
     *
     * @param pausedAt when an operator paused it, null when not paused
     * @param acknowledged the messages it acknowledged since its start ({@code lens.messages}, outcome acked)
     * @param lastProcessed when it last processed a message, null before the first
     */
    public record State(
            String queue,
            boolean running,
            @Nullable Instant pausedAt,
            int activeConsumers,
            long acknowledged,
            @Nullable Instant lastProcessed) {}

    public ListenerEndpoint(
            ListenerSwitch listenerSwitch, LensMessageListener listener, MeterRegistry meters, String queue) {
        this.listenerSwitch = listenerSwitch;
        this.listener = listener;
        this.meters = meters;
        this.queue = queue;
    }

    @ReadOperation
    public State state() {
        long acked = 0;
        for (Counter c : meters.find(LensMetrics.MESSAGES)
                .tag("outcome", LensMetrics.Outcome.ACKED.tag())
                .counters()) {
            acked += (long) c.count();
        }
        return new State(
                queue,
                listenerSwitch.running(),
                listenerSwitch.pausedAt(),
                listenerSwitch.activeConsumers(),
                acked,
                listener.lastProcessed());
    }

    /** Pauses ({@code running: false}) or resumes ({@code running: true}) the listener; answers the new state. */
    @WriteOperation
    public State running(@Nullable Boolean running) {
        if (running == null) {
            throw new InvalidEndpointRequestException(
                    "running is required: true resumes the listener, false pauses it",
                    "running is required: true resumes the listener, false pauses it");
        }
        if (running) {
            listenerSwitch.resume();
        } else {
            listenerSwitch.pause();
        }
        return state();
    }
}
