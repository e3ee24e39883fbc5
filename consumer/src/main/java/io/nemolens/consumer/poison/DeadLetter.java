package io.nemolens.consumer.poison;

import io.nemolens.handlers.Encoding;
import io.nemolens.handlers.FailureCategory;
import io.nemolens.handlers.Signal;
import org.jspecify.annotations.Nullable;

/**
 * Why a message is going to the poison queue.
 *
 * @param category the failure category
 * @param cause the exception that decided it
 * @param signal the signal, or {@code null} when the routing key named none
 * @param encoding the detected encoding, or {@code null} when unknown
 * @param attempts how many times handlers were tried (0 when it never reached them)
 */
public record DeadLetter(
        FailureCategory category,
        Throwable cause,
        @Nullable Signal signal,
        @Nullable Encoding encoding,
        int attempts) {}
