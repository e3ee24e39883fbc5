package io.nemolens.archive.spool;

import static io.nemolens.archive.spool.SpoolFixtures.payload;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The spool never takes the room the archive's files need to release it: it keeps its reserve free on its
 * volume whatever {@code maxBytes} says, and a {@code maxBytes} larger than the volume is reduced at start.
 */
class SpoolVolumeTest {

    @TempDir
    Path tmp;

    private long usable() throws Exception {
        return Files.getFileStore(tmp).getUsableSpace();
    }

    @Test
    void aMaximumLargerThanTheVolumeIsReducedToWhatItHoldsBesideTheReserve() throws Exception {
        long reserve = 1 << 20;
        long moreThanTheVolume = usable() + (1L << 40);
        try (Spool spool = Spool.open(
                tmp.resolve("spool"), new SpoolOptions(moreThanTheVolume, 1 << 20, reserve), Clock.systemUTC())) {
            assertThat(spool.maxBytes())
                    .isLessThan(moreThanTheVolume)
                    .isLessThanOrEqualTo(usable() - reserve + (1 << 20));
            assertThat(spool.append(payload(1)).durable()).succeedsWithin(java.time.Duration.ofSeconds(10));
        }
        try (Spool spool = Spool.open(tmp.resolve("spool"), new SpoolOptions(1 << 30, 1 << 20), Clock.systemUTC())) {
            assertThat(spool.maxBytes())
                    .as("without a reserve, the maximum as given")
                    .isEqualTo(1 << 30);
        }
    }

    @Test
    void anAppendThatWouldEatIntoTheReserveIsRefusedAsAFullSpoolsIsAndSaysWhy() throws Exception {
        // a reserve larger than what is free: as a volume that the archive's files have filled
        long reserve = usable() + (1L << 30);
        try (Spool spool =
                Spool.open(tmp.resolve("spool"), new SpoolOptions(1 << 30, 1 << 20, reserve), Clock.systemUTC())) {
            assertThatThrownBy(() -> spool.append(payload(1)))
                    .isInstanceOf(SpoolFullException.class)
                    .hasMessageContaining("the spool's volume has")
                    .hasMessageContaining("free for the archive's files");
            SpoolStatus status = spool.status();
            assertThat(status.full()).isTrue();
            assertThat(status.fullReason()).contains("the spool's volume has");
            assertThat(status.writable())
                    .as("full, not broken: it takes messages again once there is room")
                    .isTrue();
        }
    }

    @Test
    void withRoomBesideTheReserveAppendsAreTaken() throws Exception {
        try (Spool spool =
                Spool.open(tmp.resolve("spool"), new SpoolOptions(1 << 30, 1 << 20, 1 << 20), Clock.systemUTC())) {
            for (int i = 0; i < 10; i++) {
                assertThat(spool.append(payload(i)).durable()).succeedsWithin(java.time.Duration.ofSeconds(10));
            }
            assertThat(spool.status().full()).isFalse();
        }
    }
}
