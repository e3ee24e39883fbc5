package io.nemolens.archive;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.archive.commit.Manifest;
import io.nemolens.archive.commit.StartupRecovery;
import io.nemolens.archive.parquet.PartitionKey;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.handlers.ReceivedMessage;
import io.nemolens.handlers.Signal;
import io.nemolens.testing.ArchiveReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An upgrade to the folder names of {@link PartitionKey}: the spool still holds entries whose rows are in
 * files committed under the former folder names (the manifest names those), and start-up recovery must
 * not write them again under the new names.
 */
class FormerFolderRecoveryTest {

    private static final String DATE = "2026-11-30";

    @TempDir
    Path dir;

    private final OtlpDecoder decoder = new OtlpDecoder();

    @Test
    void rowsCommittedUnderTheFormerFolderNamesAreNotWrittenAgainAtStart() throws Exception {
        List<ReceivedMessage> sent = List.of(
                spans(NemoLensRequests.spans(5, "", 0, 1)),
                spans(NemoLensRequests.spans(3, "_tmp", 0, 2)),
                spans(NemoLensRequests.spans(4, "launch-\uD83D\uDE80", 0, 3)),
                spans(NemoLensRequests.spans(2, "plain", 0, 4)));
        try (ParquetArchive archive =
                ParquetArchive.builder(ArchiveOptions.defaults(dir), decoder).open()) {
            for (ReceivedMessage m : sent) {
                archive.accept(m).toCompletableFuture().get(10, TimeUnit.SECONDS);
            }
            archive.commitNow();
        }
        // as the version before wrote them: the folders under their former names, and the manifest saying so
        Map<String, String> former = Map.of(
                "run_id=__HIVE_DEFAULT_PARTITION__", "run_id=unknown",
                "run_id=%5Ftmp", "run_id=_tmp",
                "run_id=launch-%F0%9F%9A%80", "run_id=launch-%3F%3F");
        Path date = dir.resolve("spans").resolve("date=" + DATE);
        for (Map.Entry<String, String> f : former.entrySet()) {
            Files.move(date.resolve(f.getKey()), date.resolve(f.getValue()));
        }
        Path manifestPath = dir.resolve(".spool").resolve("manifest.log");
        List<Manifest.Entry> renamed = new ArrayList<>();
        try (Manifest manifest = Manifest.open(manifestPath)) {
            for (Manifest.Entry e : manifest.entriesAtOpen()) {
                String file = e.file();
                for (Map.Entry<String, String> f : former.entrySet()) {
                    file = file.replace("/" + f.getKey() + "/", "/" + f.getValue() + "/");
                }
                renamed.add(new Manifest.Entry(file, e.seqs(), e.contentId()));
            }
            assertThat(renamed).hasSize(4);
            manifest.rewrite(renamed);
        }

        try (ParquetArchive archive =
                ParquetArchive.builder(ArchiveOptions.defaults(dir), decoder).open()) {
            assertThat(archive.rewritten(Duration.ofSeconds(30))).isTrue();
            archive.commitNow();
        }
        try (ArchiveReader reader = new ArchiveReader(dir)) {
            assertThat(reader.scalar("SELECT count(*) FROM %s", "spans")).isEqualTo(14L);
            assertThat(reader.scalar("SELECT count(*) FROM (SELECT DISTINCT _message_id, _row FROM %s)", "spans"))
                    .isEqualTo(14L);
        }
        try (Stream<Path> folders = Files.list(date)) {
            assertThat(folders.map(p -> p.getFileName().toString()))
                    .containsExactlyInAnyOrder("run_id=unknown", "run_id=_tmp", "run_id=launch-%3F%3F", "run_id=plain");
        }
    }

    @Test
    void aFormerFolderThatIsAnotherPartitionsFolderNowCountsForNothing() {
        PartitionKey noRun = PartitionKey.of("spans", DATE, "");
        PartitionKey unknown = PartitionKey.of("spans", DATE, "unknown");
        Set<String> committed = Set.of("spans/date=" + DATE + "/run_id=unknown");
        assertThat(noRun.formerRelative()).isEqualTo(unknown.relative());

        // committed before the upgrade: the rows without a run went to "unknown"
        assertThat(StartupRecovery.committedAlready(committed, noRun, List.of(noRun)))
                .isTrue();
        // the entry also has rows of the run "unknown", whose folder that is now: its file may hold those
        // alone, so the rows without a run are written again (a duplicate at worst, never a loss)
        assertThat(StartupRecovery.committedAlready(committed, noRun, List.of(noRun, unknown)))
                .isFalse();
        assertThat(StartupRecovery.committedAlready(committed, unknown, List.of(noRun, unknown)))
                .isTrue();
        assertThat(StartupRecovery.committedAlready(Set.of(), noRun, List.of(noRun)))
                .isFalse();
    }

    private ReceivedMessage spans(io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest request) {
        byte[] body = request.toByteArray();
        return ParquetArchiveTest.received(decoder.decode(Signal.SPANS, body, null), body);
    }
}
