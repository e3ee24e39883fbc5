package io.nemolens.app.archive;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.testing.ArchiveReader;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/** The {@code spans} table of an archive, read back with DuckDB. */
final class ArchivedSpans {

    private ArchivedSpans() {}

    /**
     * Rows in committed files; -1 while DuckDB cannot read them (none yet, or a file renamed under its glob).
     */
    static long rows(Path archive) {
        try (ArchiveReader reader = new ArchiveReader(archive)) {
            return (Long) reader.scalar("SELECT count(*) FROM %s", "spans");
        } catch (Exception e) {
            return -1;
        }
    }

    /**
     * The archive holds every span of the messages {@code ids} exactly once: as many rows as they have, counted
     * without {@code DISTINCT}, no {@code (_message_id, _row)} twice, and those messages only.
     */
    static void assertExactlyOnce(Path archive, Set<String> ids, int spansPerMessage) throws Exception {
        assertExactlyOnce(archive, ids, spansPerMessage, "");
    }

    /** {@link #assertExactlyOnce(Path, Set, int)}, each failure told {@code about} (a seed, the kills). */
    static void assertExactlyOnce(Path archive, Set<String> ids, int spansPerMessage, String about) throws Exception {
        try (ArchiveReader reader = new ArchiveReader(archive)) {
            assertThat(reader.scalar("SELECT count(*) FROM %s", "spans"))
                    .as("rows, counted without DISTINCT (%s)", about)
                    .isEqualTo((long) ids.size() * spansPerMessage);
            assertThat(reader.scalar(
                            "SELECT count(*) FROM (SELECT _message_id, _row FROM %s GROUP BY _message_id, _row"
                                    + " HAVING count(*) > 1)",
                            "spans"))
                    .as("(_message_id, _row) pairs archived more than once (%s)", about)
                    .isEqualTo(0L);
            Set<String> archived = new HashSet<>();
            reader.query("SELECT DISTINCT _message_id FROM %s", "spans")
                    .forEach(r -> archived.add((String) r.get("_message_id")));
            assertThat(archived).as("the messages archived (%s)", about).isEqualTo(ids);
        }
    }
}
