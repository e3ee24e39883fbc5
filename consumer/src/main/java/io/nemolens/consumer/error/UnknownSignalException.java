package io.nemolens.consumer.error;

import io.nemolens.handlers.FailureCategory;
import io.nemolens.handlers.LensException;

/** The routing key names no known signal. Permanent. */
public class UnknownSignalException extends LensException {
    private static final long serialVersionUID = 1L;

    public UnknownSignalException(String routingKey) {
        super("unknown routing key '" + routingKey + "': expected otlp_spans, otlp_metrics or otlp_logs", null);
    }

    @Override
    public FailureCategory category() {
        return FailureCategory.UNKNOWN_SIGNAL;
    }
}
