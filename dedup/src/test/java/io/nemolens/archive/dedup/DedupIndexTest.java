package io.nemolens.archive.dedup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIOException;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import io.nemolens.testing.MutableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Real files, a clock moved by hand (on 2026-11-30, UTC): what is recorded is found, through restarts,
 * rollovers, expiry and what a crash leaves behind.
 */
class DedupIndexTest {

    private static final Duration DAY = Duration.ofHours(24);
    private static final DedupStatus EMPTY = new DedupStatus(0, 0, 0, null);

    @TempDir
    Path dir;

    private final MutableClock clock = MutableClock.at("2026-11-30T10:15:00Z");
    private final TestIds ids = new TestIds(42);
    private DedupIndex index;

    private DedupIndex open(Duration window) throws IOException {
        index = DedupIndex.open(dir, window, clock);
        return index;
    }

    private DedupIndex open() throws IOException {
        return open(DAY);
    }

    private void reopen() throws IOException {
        index.close();
        open();
    }

    /** Records that many new ids with the clock at this time of the day. */
    private List<MessageKey> recordAt(String time, int count) throws IOException {
        clock.set(Instant.parse("2026-11-30T" + time + ":00Z"));
        List<MessageKey> recorded = ids.next(count);
        index.record(recorded);
        return recorded;
    }

    private List<String> files() throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(f -> f.getFileName().toString()).sorted().toList();
        }
    }

    /** The index's folder holds its lock alone and the index says it is empty. */
    private void assertHoldsNothing() throws IOException {
        assertThat(files()).containsExactly("lock");
        assertThat(index.status()).isEqualTo(EMPTY);
    }

    @AfterEach
    void close() {
        if (index != null) {
            index.close();
        }
    }

    @Test
    void findsWhatWasRecordedAndNothingElse() throws IOException {
        open();
        List<MessageKey> recorded = recordAt("10:15", 1000);

        assertThat(recorded).allMatch(index::contains);
        assertThat(ids.next(1000)).noneMatch(index::contains);
        assertThat(index.contains(MessageKey.ofHex(recorded.get(7).hex()))).isTrue();
        assertThat(files()).containsExactly("20261130T10.log", "lock");
    }

    @Test
    void recordingNothingWritesNothing() throws IOException {
        open().record(List.of());

        assertHoldsNothing();
    }

    @Test
    void theCurrentHourSurvivesCloseAndReopen() throws IOException {
        open();
        List<MessageKey> first = recordAt("10:15", 300);
        List<MessageKey> second = recordAt("10:20", 300);

        reopen();

        assertThat(first).allMatch(index::contains);
        assertThat(second).allMatch(index::contains);
        assertThat(index.status().ids()).isEqualTo(600);
    }

    @Test
    void aClosedHourIsCompactedToASortedFileAndStillFound() throws IOException {
        open();
        List<MessageKey> ten = recordAt("10:15", 500);
        List<MessageKey> eleven = recordAt("11:15", 500);

        assertThat(files()).containsExactly("20261130T10.log", "20261130T11.log", "lock");
        assertThat(ten).allMatch(index::contains);

        index.maintain();

        assertThat(files()).containsExactly("20261130T10.sorted", "20261130T11.log", "lock");
        assertThat(Files.size(dir.resolve("20261130T10.sorted"))).isEqualTo(500 * 16);
        assertThat(ten).allMatch(index::contains);
        assertThat(eleven).allMatch(index::contains);
        assertThat(ids.next(1000)).noneMatch(index::contains);
    }

    @Test
    void maintainCompactsAnHourTheClockPassedWithoutARecord() throws IOException {
        open();
        List<MessageKey> ten = recordAt("10:15", 100);
        clock.set(Instant.parse("2026-11-30T11:00:00Z"));

        index.maintain();

        assertThat(files()).containsExactly("20261130T10.sorted", "lock");
        assertThat(ten).allMatch(index::contains);
    }

    @Test
    void sortedHoursSurviveCloseAndReopen() throws IOException {
        open();
        List<MessageKey> ten = recordAt("10:15", 200);
        List<MessageKey> eleven = recordAt("11:15", 200);
        index.maintain();

        reopen();

        assertThat(ten).allMatch(index::contains);
        assertThat(eleven).allMatch(index::contains);
        assertThat(index.status()).isEqualTo(new DedupStatus(400, 400 * 16, 2, Instant.parse("2026-11-30T10:00:00Z")));
    }

    @Test
    void idsOlderThanTheWindowAreGoneAfterMaintain() throws IOException {
        open(Duration.ofHours(2));
        List<MessageKey> ten = recordAt("10:15", 100);
        List<MessageKey> eleven = recordAt("11:59", 100);
        clock.set(Instant.parse("2026-11-30T13:00:00Z")); // hour 10 ended two hours ago, hour 11 not yet

        index.maintain();

        assertThat(ten).noneMatch(index::contains);
        assertThat(eleven).allMatch(index::contains);
        assertThat(files()).containsExactly("20261130T11.sorted", "lock");

        clock.set(Instant.parse("2026-11-30T14:00:00Z"));
        index.maintain();

        assertThat(eleven).noneMatch(index::contains);
        assertHoldsNothing();
    }

    @Test
    void aClockThatGoesBackNeverWritesIntoAClosedHour() throws IOException {
        open();
        List<MessageKey> eleven = recordAt("11:30", 100);
        clock.set(Instant.parse("2026-11-30T12:10:00Z"));
        index.maintain();

        List<MessageKey> later = recordAt("11:50", 100);

        assertThat(files()).containsExactly("20261130T11.sorted", "20261130T12.log", "lock");
        reopen();
        assertThat(eleven).allMatch(index::contains);
        assertThat(later).allMatch(index::contains);
    }

    @Test
    void aSecondIndexOnTheSameFolderIsRefused() throws IOException {
        open();

        assertThatIOException()
                .isThrownBy(() -> DedupIndex.open(dir, DAY, clock))
                .withMessageContaining("another dedup index");
    }

    @Test
    void aClosedIndexRefusesWorkAndReleasesTheFolder() throws IOException {
        open();
        recordAt("10:15", 10);
        index.close();
        index.close();

        assertThatIllegalStateException().isThrownBy(() -> index.contains(ids.next()));
        assertThatIllegalStateException().isThrownBy(() -> index.record(ids.next(1)));
        assertThatIllegalStateException().isThrownBy(index::maintain);
        DedupIndex.open(dir, DAY, clock).close();
    }

    @Test
    void theWindowMustBePositive() {
        assertThatIllegalArgumentException().isThrownBy(() -> DedupIndex.open(dir, Duration.ZERO, clock));
    }

    /** What an earlier run left: logs of closed hours, a torn record, a temporary file, expired hours. */
    @Nested
    class AtOpen {

        private final byte[] torn = {1, 2, 3, 4, 5, 6, 7};

        /** Records as a run that then stops (a crash: closing compacts nothing), and moves the clock on. */
        private List<MessageKey> runRecording(String time, int count, String stopAt) throws IOException {
            open();
            List<MessageKey> recorded = recordAt(time, count);
            index.close();
            clock.set(Instant.parse("2026-11-30T" + stopAt + ":00Z"));
            return recorded;
        }

        @Test
        void logsOfClosedHoursAreCompacted() throws IOException {
            List<MessageKey> ten = runRecording("10:15", 200, "12:00");

            open();

            assertThat(files()).containsExactly("20261130T10.sorted", "lock");
            assertThat(ten).allMatch(index::contains);
        }

        @Test
        void logsOfSeveralHoursAreCompactedAndTheCurrentHoursKeptOpen() throws IOException {
            List<MessageKey> all = new ArrayList<>();
            for (String hour : List.of("07", "08", "09", "10")) {
                List<MessageKey> batch = ids.next(100);
                Files.write(
                        dir.resolve("20261130T" + hour + ".log"),
                        Records.encode(batch).array());
                all.addAll(batch);
            }

            open();

            assertThat(all).allMatch(index::contains);
            assertThat(files())
                    .containsExactly(
                            "20261130T07.sorted",
                            "20261130T08.sorted",
                            "20261130T09.sorted",
                            "20261130T10.log",
                            "lock");
            assertThat(index.status().hours()).isEqualTo(4);
            recordAt("10:30", 10);
            assertThat(Files.size(dir.resolve("20261130T10.log"))).isEqualTo(110 * 16);
        }

        @Test
        void aTornLastRecordOfTheCurrentHourIsIgnoredAndWrittenOver() throws IOException {
            List<MessageKey> before = runRecording("10:15", 50, "10:20");
            Path log = dir.resolve("20261130T10.log");
            Files.write(log, torn, StandardOpenOption.APPEND);

            open();
            assertThat(index.status().ids()).isEqualTo(50);
            assertThat(before).allMatch(index::contains);
            List<MessageKey> after = recordAt("10:25", 50);
            reopen();

            assertThat(Files.size(log)).isEqualTo(100 * 16);
            assertThat(before).allMatch(index::contains);
            assertThat(after).allMatch(index::contains);
        }

        @Test
        void aTornLastRecordOfAClosedHourIsLeftOutOfItsSortedFile() throws IOException {
            List<MessageKey> ten = runRecording("10:15", 50, "11:15");
            Files.write(dir.resolve("20261130T10.log"), torn, StandardOpenOption.APPEND);

            open();

            assertThat(Files.size(dir.resolve("20261130T10.sorted"))).isEqualTo(50 * 16);
            assertThat(ten).allMatch(index::contains);
        }

        @Test
        void aLogWithNoWholeRecordLeavesNothing() throws IOException {
            Files.write(dir.resolve("20261130T09.log"), torn);

            open();

            assertHoldsNothing();
        }

        @Test
        void aLogWhoseSortedFileWasWrittenIsDeletedAndSoAreTemporaryFiles() throws IOException {
            List<MessageKey> ten = runRecording("10:15", 50, "11:15");
            Path log = dir.resolve("20261130T10.log");
            Path copy = Files.copy(log, dir.resolve("copy"));
            open().close(); // compacts hour 10
            Files.move(copy, log); // as if the crash came before the log's deletion reached the disk
            Files.write(dir.resolve("20261130T11.sorted.tmp"), new byte[32]);

            open();

            assertThat(files()).containsExactly("20261130T10.sorted", "lock");
            assertThat(ten).allMatch(index::contains);
        }

        @Test
        void expiredHoursAreDeletedNotCompacted() throws IOException {
            List<MessageKey> ten = runRecording("10:15", 100, "11:15");
            List<MessageKey> eleven = runRecording("11:15", 100, "11:20");
            clock.set(Instant.parse("2026-12-01T11:30:00Z"));

            open();

            assertThat(files()).containsExactly("20261130T11.sorted", "lock");
            assertThat(ten).noneMatch(index::contains);
            assertThat(eleven).allMatch(index::contains);
        }

        @Test
        void filesThatAreNotTheIndexsAreLeftAlone() throws IOException {
            Files.writeString(dir.resolve("README"), "mine");
            Files.writeString(dir.resolve("20261399T99.log"), "no hour");

            open();

            assertThat(files()).containsExactly("20261399T99.log", "README", "lock");
        }
    }
}
