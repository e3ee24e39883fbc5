package io.nemolens.runwatch;

import org.jspecify.annotations.Nullable;

/** The parts of a Megatron training step the watch keeps, by the name of the span that times each. */
public enum StepPhase {
    /** {@code megatron.train_step}: the whole step. */
    TRAIN_STEP("megatron.train_step"),
    /** {@code megatron.forward_backward}: the forward and backward passes of every microbatch. */
    FORWARD_BACKWARD("megatron.forward_backward"),
    /** {@code megatron.optimizer_step}: the optimizer's update. */
    OPTIMIZER_STEP("megatron.optimizer_step");

    private final String spanName;

    StepPhase(String spanName) {
        this.spanName = spanName;
    }

    /** The name of the span that times this phase. */
    public String spanName() {
        return spanName;
    }

    /** The phase a span with this name times, or {@code null} for any other span. */
    public static @Nullable StepPhase ofSpanName(String name) {
        // the three names differ in length: one length check and at most one equals per span
        for (StepPhase phase : VALUES) {
            if (phase.spanName.length() == name.length() && phase.spanName.equals(name)) {
                return phase;
            }
        }
        return null;
    }

    private static final StepPhase[] VALUES = values();
}
