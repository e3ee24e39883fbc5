package io.nemolens.archive.spool;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/** A clock a test moves by hand. */
final class MutableClock extends Clock {

    private volatile long millis;

    MutableClock(long millis) {
        this.millis = millis;
    }

    void set(long millis) {
        this.millis = millis;
    }

    void advance(Duration duration) {
        millis += duration.toMillis();
    }

    @Override
    public long millis() {
        return millis;
    }

    @Override
    public Instant instant() {
        return Instant.ofEpochMilli(millis);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return this;
    }
}
