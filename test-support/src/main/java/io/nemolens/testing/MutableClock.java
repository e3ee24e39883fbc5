package io.nemolens.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock a test moves by hand: what the archive, its spool and its de-duplication index are given. In UTC; a
 * view of it in another zone ({@link #withZone}) moves with it.
 */
public final class MutableClock extends Clock {

    /** The instant a clock and its views in other zones share. */
    private static final class Now {
        volatile Instant instant;

        Now(Instant instant) {
            this.instant = instant;
        }
    }

    private final Now now;
    private final ZoneId zone;

    public MutableClock(Instant start) {
        this(new Now(start), ZoneOffset.UTC);
    }

    private MutableClock(Now now, ZoneId zone) {
        this.now = now;
        this.zone = zone;
    }

    /** A clock at an instant in ISO-8601 form, such as {@code 2026-11-30T10:15:00Z}. */
    public static MutableClock at(String instant) {
        return new MutableClock(Instant.parse(instant));
    }

    public void set(Instant instant) {
        now.instant = instant;
    }

    /** Moves the clock on; one test thread moves it (the archive's threads only read it). */
    public synchronized void advance(Duration duration) {
        now.instant = now.instant.plus(duration);
    }

    @Override
    public Instant instant() {
        return now.instant;
    }

    @Override
    public long millis() {
        return now.instant.toEpochMilli();
    }

    @Override
    public ZoneId getZone() {
        return zone;
    }

    /** The same clock, seen in {@code zone}: setting or advancing either moves both. */
    @Override
    public Clock withZone(ZoneId zone) {
        return new MutableClock(now, zone);
    }
}
