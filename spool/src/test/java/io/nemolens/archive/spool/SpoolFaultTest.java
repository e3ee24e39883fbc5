package io.nemolens.archive.spool;

import static io.nemolens.archive.spool.SpoolFixtures.ENTRY_BYTES;
import static io.nemolens.archive.spool.SpoolFixtures.payload;
import static io.nemolens.archive.spool.SpoolFixtures.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nemolens.archive.spool.SpoolFixtures.Read;
import io.nemolens.testing.MutableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A folder the spool cannot write to (here: replaced by a regular file, which stops root too) fails the
 * appends that were not durable and makes the spool unavailable; a write probe brings it back.
 */
class SpoolFaultTest {

    @TempDir
    Path tmp;

    private final MutableClock clock = new MutableClock(Instant.ofEpochMilli(1_700_000_000_000L));

    @Test
    void anUnwritableFolderFailsTheAppendAndTheSpoolRecoversOnceItIsBack() throws IOException {
        Path dir = tmp.resolve("spool");
        Path away = tmp.resolve("away");
        try (Spool spool = Spool.open(dir, new SpoolOptions(1 << 20, 2 * ENTRY_BYTES), clock)) {
            spool.append(payload(0)).durable().join();
            spool.append(payload(1)).durable().join(); // the segment is full: the next append rolls over

            Files.move(dir, away);
            Files.writeString(dir, "not a folder");
            Appended lost = spool.append(payload(2));

            assertThat(lost.durable())
                    .failsWithin(Duration.ofSeconds(10))
                    .withThrowableThat()
                    .havingCause()
                    .isInstanceOf(SpoolUnavailableException.class)
                    .withMessageContaining(dir.toString());
            SpoolStatus status = spool.status();
            assertThat(status.writable()).isFalse();
            assertThat(status.problem()).contains(dir.toString());
            assertThatThrownBy(() -> spool.append(payload(3))).isInstanceOf(SpoolUnavailableException.class);

            clock.advance(Duration.ofSeconds(2)); // a probe is due, and fails
            assertThatThrownBy(() -> spool.append(payload(3)))
                    .isInstanceOf(SpoolUnavailableException.class)
                    .hasMessageContaining("probe");

            Files.delete(dir);
            Files.move(away, dir);
            assertThatThrownBy(() -> spool.append(payload(3)))
                    .as("no second probe within a second")
                    .isInstanceOf(SpoolUnavailableException.class);
            clock.advance(Duration.ofSeconds(2));
            Appended back = spool.append(payload(3));
            back.durable().join();

            assertThat(back.seq()).as("the failed append's seq stays unused").isEqualTo(3);
            assertThat(spool.status().writable()).isTrue();
            assertThat(spool.status().problem()).isNull();
            assertThat(readAll(spool)).extracting(Read::seq).containsExactly(0L, 1L, 3L);
        }
        try (Spool again = Spool.open(dir, new SpoolOptions(1 << 20, 2 * ENTRY_BYTES), clock)) {
            assertThat(again.recovery().damaged()).isEmpty();
            assertThat(again.recovery().tornBytesCut()).isZero();
            assertThat(readAll(again)).extracting(Read::seq).containsExactly(0L, 1L, 3L);
        }
    }
}
