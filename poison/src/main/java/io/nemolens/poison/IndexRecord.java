package io.nemolens.poison;

import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * One record of the poison index stream, as JSON. {@code type} says which part is set:
 *
 * <ul>
 *   <li>{@value #POISONED}: a message went into the poison queue ({@link Poisoned});</li>
 *   <li>{@value #REMOVED}: it left (replayed, parked, discarded, or found gone by a re-index: {@link Removed});</li>
 *   <li>{@value #ACTION}: an operator's run over the poison queue ({@link Action});</li>
 *   <li>{@value #HELLO}: an instance started reading (how it knows it has read what was there).</li>
 * </ul>
 *
 * @param type the kind of record
 * @param at when it was appended (ISO-8601)
 * @param key the poisoning it is about ({@link PoisonMessage#key()}), for {@code poisoned} and {@code removed}
 * @param poisoned what was poisoned
 * @param removed how it left
 * @param action what an operator did
 * @param instance the instance that says hello
 */
public record IndexRecord(
        String type,
        String at,
        @Nullable String key,
        @Nullable Poisoned poisoned,
        @Nullable Removed removed,
        @Nullable Action action,
        @Nullable String instance) {

    public static final String POISONED = "poisoned";
    public static final String REMOVED = "removed";
    public static final String ACTION = "action";
    public static final String HELLO = "hello";

    /**
     * A poisoned message, described once when it is poisoned, so that it can be shown without reading it.
     *
     * @param messageId the body's hash ({@code MessageInfo.messageId()})
     * @param exchange where it was first published
     * @param routingKey the routing key it was first published with
     * @param category the failure category
     * @param reason the reason's first line, at most 200 characters
     * @param exceptionClass the exception's class
     * @param signal {@code spans}, {@code metrics}, {@code logs}, or {@code null}
     * @param encoding {@code protobuf}, {@code json}, or {@code null}
     * @param firstFailedAt when it failed first (ISO-8601), or {@code null}
     * @param failedAt when it failed last (ISO-8601), or {@code null}
     * @param replayCount how often it was replayed before
     * @param size the body's size in bytes
     * @param contentType the message's content type, or {@code null}
     * @param runIds the {@code nemo.run.id}s of its records, when it decodes (at most five)
     * @param headers every header as text, except the stack trace
     * @param stackTrace the {@code x-exception-stacktrace} header
     * @param body the body (base64), at most {@code lens.poison.index.max-body} bytes of it
     * @param bodyTruncated whether {@code body} is only the beginning
     */
    public record Poisoned(
            String messageId,
            String exchange,
            String routingKey,
            String category,
            String reason,
            String exceptionClass,
            @Nullable String signal,
            @Nullable String encoding,
            @Nullable String firstFailedAt,
            @Nullable String failedAt,
            int replayCount,
            int size,
            @Nullable String contentType,
            List<String> runIds,
            Map<String, String> headers,
            String stackTrace,
            String body,
            boolean bodyTruncated) {}

    /**
     * A message left the poison queue.
     *
     * @param disposition {@code replayed}, {@code parked}, {@code discarded} or {@code gone} (not found by a re-index)
     * @param by who did it
     */
    public record Removed(String disposition, String by) {}

    /**
     * An operator's run over the poison queue.
     *
     * @param by who
     * @param action {@code replay}, {@code park}, {@code discard}, {@code index}
     * @param scope what it was asked to touch
     * @param summary what it did, in one line
     */
    public record Action(String by, String action, String scope, String summary) {}
}
