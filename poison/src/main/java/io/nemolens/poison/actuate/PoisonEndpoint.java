package io.nemolens.poison.actuate;

import io.nemolens.poison.PoisonInspector;
import io.nemolens.poison.PoisonReplayer;
import io.nemolens.poison.PoisonReport;
import io.nemolens.poison.ReplayRequest;
import io.nemolens.poison.ReplaySummary;
import java.io.IOException;
import java.io.UncheckedIOException;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The actuator endpoint {@code poison}: {@code GET /actuator/poison?max=N} lists the poison queue
 * ({@link PoisonInspector}); {@code POST /actuator/poison} with a JSON body of {@link ReplayRequest}'s
 * fields replays it ({@link PoisonReplayer}). Not exposed over HTTP unless added to
 * {@code management.endpoints.web.exposure.include}; read-only unless
 * {@code management.endpoint.poison.access=unrestricted}; every request to it needs HTTP Basic
 * authentication ({@code spring.security.user.*}). A bad request (a negative {@code max} or {@code rate}, a
 * value of the wrong type, a field it does not know) is refused with the reason, as 400 over HTTP
 * ({@link PoisonEndpointRequests}).
 */
@Endpoint(id = PoisonEndpoint.ID, defaultAccess = Access.READ_ONLY)
public class PoisonEndpoint {

    /** The endpoint's id: {@code /actuator/poison}. */
    public static final String ID = "poison";

    private final PoisonInspector inspector;
    private final PoisonReplayer replayer;

    public PoisonEndpoint(PoisonInspector inspector, PoisonReplayer replayer) {
        this.inspector = inspector;
        this.replayer = replayer;
    }

    /** Lists the poison queue: counts by category and reason, and the first {@code max} messages (default {@value PoisonInspector#DEFAULT_LISTED}). */
    @ReadOperation
    public PoisonReport list(@Nullable Integer max) {
        try {
            if (max != null && max < 0) {
                throw badRequest("max must be 0 or positive, got " + max);
            }
            return inspector.inspect(max == null ? PoisonInspector.DEFAULT_LISTED : max);
        } catch (IOException e) {
            throw new UncheckedIOException("could not read the poison queue: " + e.getMessage(), e);
        }
    }

    /** Replays poison messages; every parameter is optional (defaults: all replayable, no dry run, no rate limit). */
    @WriteOperation
    public ReplaySummary replay(
            @Nullable Integer max,
            @Nullable String routingKey,
            @Nullable String category,
            @Nullable String reason,
            @Nullable Boolean includeInputFailures,
            @Nullable Boolean dryRun,
            @Nullable Double rate) {
        ReplayRequest request;
        try {
            request = ReplayRequest.of(max, routingKey, category, reason, includeInputFailures, dryRun, rate);
        } catch (IllegalArgumentException e) {
            throw badRequest(e.getMessage() != null ? e.getMessage() : e.toString());
        }
        try {
            return replayer.replay(request);
        } catch (IOException e) {
            throw new UncheckedIOException("could not replay the poison queue: " + e.getMessage(), e);
        }
    }

    private static InvalidEndpointRequestException badRequest(String reason) {
        return new InvalidEndpointRequestException(reason, reason);
    }
}
