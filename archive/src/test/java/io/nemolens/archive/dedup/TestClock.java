package io.nemolens.archive.dedup;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock the test moves by hand. */
final class TestClock extends Clock {

    private volatile Instant now;

    TestClock(String start) {
        this.now = Instant.parse(start);
    }

    void advance(Duration duration) {
        now = now.plus(duration);
    }

    void set(String instant) {
        now = Instant.parse(instant);
    }

    @Override
    public Instant instant() {
        return now;
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        throw new UnsupportedOperationException("the index reads instants only");
    }
}
