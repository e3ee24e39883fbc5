package io.nemolens.archive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.archive.store.LocalFolder;
import io.nemolens.archive.table.ArchiveTables;
import io.nemolens.archive.table.TableFile;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.handlers.Signal;
import io.nemolens.handlers.TransientHandlerException;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.parquet.schema.MessageType;
import org.junit.jupiter.api.Test;

/**
 * With tables, a committed file goes on (its spool entries released) only once it is in its table; files are
 * appended in waves, one call for what waits; while the catalog fails nothing is released and the archive says why;
 * a file the store took before a stop but no table holds is appended at the next start.
 */
class TableCommitsTest extends ArchiveTestCase {

    /**
     * Tables that remember what they were given and keep a watermark per table and writer, as a catalog's do (a
     * file at or below it is held), and fail while told to.
     */
    static final class RecordingTables implements ArchiveTables {
        final List<List<TableFile>> waves = new CopyOnWriteArrayList<>();
        final Map<String, MessageType> prepared = new java.util.concurrent.ConcurrentHashMap<>();
        final Map<String, Long> watermarks = new java.util.concurrent.ConcurrentHashMap<>();
        volatile boolean failing;
        /** Appends still to fail, each after a pause (as a catalog that times out). */
        final java.util.concurrent.atomic.AtomicInteger slowFailures = new java.util.concurrent.atomic.AtomicInteger();

        @Override
        public long appended(String table, String writer) {
            return watermarks.getOrDefault(table + "/" + writer, -1L);
        }

        @Override
        public String location() {
            return "recording";
        }

        @Override
        public MessageType prepare(String table, MessageType columns) {
            prepared.put(table, columns);
            return columns;
        }

        @Override
        public void append(List<TableFile> files) throws IOException {
            if (failing) {
                throw new IOException("the catalog is away");
            }
            if (slowFailures.getAndDecrement() > 0) {
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                throw new IOException("the catalog timed out");
            }
            List<TableFile> taken = new ArrayList<>();
            for (TableFile f : files) {
                String key = f.table() + "/" + f.writer();
                if (f.number() > watermarks.getOrDefault(key, -1L)) {
                    watermarks.put(key, f.number());
                    taken.add(f);
                }
            }
            waves.add(List.copyOf(taken));
        }

        /** Short, so that files cut by age reach their tables soon. */
        Duration interval = Duration.ofMillis(200);

        @Override
        public Duration commitInterval() {
            return interval;
        }

        List<TableFile> appended() {
            List<TableFile> all = new ArrayList<>();
            waves.forEach(all::addAll);
            return all;
        }

        @Override
        public void close() {}
    }

    private ParquetArchive open(RecordingTables tables) {
        return open(tables, ArchiveOptions.defaults(dir));
    }

    private ParquetArchive open(RecordingTables tables, ArchiveOptions options) {
        archive = ParquetArchive.builder(options, decoder)
                .store(new LocalFolder(dir))
                .tables(tables)
                .open();
        return archive;
    }

    private void take(int run) throws Exception {
        byte[] body = NemoLensRequests.spans(3, "tables-run-" + run, 0, run).toByteArray();
        archive.accept(ParquetArchiveTest.received(decoder.decode(Signal.SPANS, body, null), body))
                .toCompletableFuture()
                .get(10, TimeUnit.SECONDS);
    }

    @Test
    void filesCutTogetherAreAppendedInOneWaveAndReleasedOnlyThen() throws Exception {
        RecordingTables tables = new RecordingTables();
        // long, so that no wave comes while the four are published one by one (commitNow() drains at once)
        tables.interval = Duration.ofMinutes(1);
        open(tables);
        assertThat(tables.prepared).containsOnlyKeys("spans", "metrics", "logs", "gpu_metrics", "node_metrics");
        for (int run = 0; run < 4; run++) {
            take(run);
        }
        archive.commitNow();

        assertThat(tables.waves).as("four files cut together: one wave").hasSize(1);
        assertThat(tables.appended()).hasSize(4).allSatisfy(f -> {
            assertThat(f.table()).isEqualTo("spans");
            assertThat(f.name()).startsWith("spans/date=").endsWith(".parquet");
            assertThat(f.contentId()).hasSize(32);
            assertThat(f.bytes()).isPositive();
            assertThat(f.footer()).isNotNull();
            assertThat(f.footer().getFileMetaData().getKeyValueMetaData())
                    .containsEntry("nemo_lens.table", "spans")
                    .containsKey("nemo_lens.date")
                    .containsKey("nemo_lens.run_id")
                    .containsEntry("nemo_lens.writer", f.writer())
                    .containsEntry("nemo_lens.writer_seq", Long.toString(f.number()));
            assertThat(f.writer()).startsWith(archive.instanceId() + "-");
        });
        assertThat(tables.appended())
                .as("numbered in the order they are handed over, above the start's time in microseconds")
                .extracting(TableFile::number)
                .isSorted()
                .doesNotHaveDuplicates()
                .allSatisfy(n -> assertThat(n).isGreaterThan(System.currentTimeMillis() * 1000 - 600_000_000L));
        assertThat(archive.status().spool().entries())
                .as("released once in their tables")
                .isZero();
        assertThat(archive.status().tables()).isNotNull();
        assertThat(archive.status().tables().appendedFiles()).isEqualTo(4);
    }

    @Test
    void whileTheCatalogFailsNothingIsReleasedAndTheArchiveSaysWhyThenItGoesOnByItself() throws Exception {
        RecordingTables tables = new RecordingTables();
        tables.failing = true;
        // files cut by age, so that nothing waits for them: commitNow() would wait until they are in their tables
        open(tables, ArchiveOptions.builder(dir).maxAge(Duration.ofMillis(300)).build());
        take(1);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> archive.status().tables().failingSince() != null);
        ArchiveStatus failing = archive.status();
        assertThat(failing.accepting()).isFalse();
        assertThat(failing.problem())
                .contains("the archive's tables recording fail since")
                .contains("the catalog is away");
        assertThat(failing.spool().entries())
                .as("held while the file is not in its table")
                .isEqualTo(1);
        assertThat(failing.tables().waitingFiles()).isEqualTo(1);
        assertThat(failing.commits().files())
                .as("the store took it, its commit waits for the table")
                .isZero();

        tables.failing = false;
        await().atMost(Duration.ofSeconds(10))
                .until(() -> archive.status().spool().entries() == 0);
        ArchiveStatus after = archive.status();
        assertThat(after.accepting()).isTrue();
        assertThat(after.tables().failingSince()).isNull();
        assertThat(after.tables().failures()).isPositive();
        assertThat(tables.appended()).hasSize(1);
    }

    @Test
    void whileTheCatalogFailsTheArchiveTakesMessagesUntilAFewFilesWaitThenRefusesThemForNow() throws Exception {
        RecordingTables tables = new RecordingTables();
        tables.failing = true;
        open(tables, ArchiveOptions.builder(dir).maxAge(Duration.ofMillis(200)).build());
        for (int run = 0; run < 4; run++) {
            take(run);
        }
        await().atMost(Duration.ofSeconds(10))
                .until(() -> archive.status().tables().waitingFiles() == 4);
        byte[] body = NemoLensRequests.spans(3, "tables-run-9", 0, 9).toByteArray();
        org.assertj.core.api.Assertions.assertThatThrownBy(() ->
                        archive.accept(ParquetArchiveTest.received(decoder.decode(Signal.SPANS, body, null), body)))
                .as("transient: the message is redelivered later, never poisoned")
                .isInstanceOf(TransientHandlerException.class)
                .hasMessageContaining("the archive's tables recording take no files (the catalog is away); 4 files"
                        + " wait for them");
        tables.failing = false;
        await().atMost(Duration.ofSeconds(10))
                .until(() -> archive.status().spool().entries() == 0);
        take(9);
    }

    @Test
    void aFileTheStoreTookButNoTableHoldsIsAppendedAtTheNextStart() throws Exception {
        RecordingTables first = new RecordingTables();
        first.failing = true;
        open(first);
        take(1);
        take(2);
        archive.close(); // commits the files into the folder; the tables fail: the files stay out of them
        archive = null;
        assertThat(first.appended()).isEmpty();

        RecordingTables second = new RecordingTables();
        open(second);
        archive.commitNow();
        await().atMost(Duration.ofSeconds(10)).until(() -> second.appended().size() == 2);
        assertThat(second.appended())
                .as("found at start: no footer in hand, the implementation reads it; writer and number kept")
                .allSatisfy(f -> {
                    assertThat(f.footer()).isNull();
                    assertThat(f.bytes()).isEqualTo(-1);
                    assertThat(f.writer()).startsWith(archive.instanceId() + "-");
                    assertThat(f.number()).isNotNegative();
                })
                .extracting(TableFile::table)
                .containsOnly("spans");
        assertThat(second.appended()).extracting(TableFile::number).isSorted();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> archive.status().spool().entries() == 0);
        assertThat(archive.status().commits().files())
                .as("no row written again: the files were committed")
                .isZero();
    }

    @Test
    void aWaveLeftOutAtTheStopLeavesEveryLaterOneOutTooAndTheNextStartAppendsThemAllInOrder() throws Exception {
        RecordingTables tables = new RecordingTables();
        tables.slowFailures.set(1);
        open(tables);
        take(1);
        take(2);
        take(3);
        // at the stop the first wave fails (slowly: the next files arrive meanwhile and make waves of their own)
        archive.close();
        archive = null;
        assertThat(tables.appended())
                .as("nothing after the wave left out: the table would take the earlier files for appended")
                .isEmpty();

        open(tables);
        archive.commitNow();
        await().atMost(Duration.ofSeconds(10)).until(() -> tables.appended().size() == 3);
        assertThat(tables.appended()).extracting(TableFile::number).isSorted();
        await().atMost(Duration.ofSeconds(10))
                .until(() -> archive.status().spool().entries() == 0);
    }

    @Test
    void aStartNumbersItsFilesAboveWhatTheTablesHoldOfItsWriterAndAFileTheyHoldIsNotAppendedAgain() throws Exception {
        RecordingTables tables = new RecordingTables();
        open(tables);
        take(1);
        archive.commitNow();
        TableFile first = tables.appended().get(0);
        archive.close();
        archive = null;

        // the tables hold more of this writer than this spool remembers (a clock set back since, say): above it
        long ahead = first.number() + 10_000_000_000L;
        tables.watermarks.put("spans/" + first.writer(), ahead);
        open(tables);
        take(2);
        archive.commitNow();
        List<TableFile> all = tables.appended();
        assertThat(all).hasSize(2);
        assertThat(all.get(1).writer()).isEqualTo(first.writer());
        assertThat(all.get(1).number()).isGreaterThan(ahead);
    }
}
