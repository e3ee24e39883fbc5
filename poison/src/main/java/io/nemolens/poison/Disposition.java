package io.nemolens.poison;

/** What a run over the poison queue does with the messages it selects. */
public enum Disposition {
    /** Back to their original exchange and routing key (the loop guard parks those replayed too often). */
    REPLAY("replayed"),
    /** To the parking-lot queue. */
    PARK("parked"),
    /** Removed for good: acknowledged in the poison queue, published nowhere. */
    DISCARD("discarded");

    private final String done;

    Disposition(String done) {
        this.done = done;
    }

    /** The past tense, as the poison index and the logs record it ({@code replayed}, {@code parked}, {@code discarded}). */
    public String done() {
        return done;
    }
}
