package io.nemolens.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.poison.PoisonIndex;
import io.nemolens.poison.PoisonMessage;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Grouping and filtering the poison index's messages, as the poison page shows them. */
class PoisonGroupsTest {

    private final List<PoisonIndex.Entry> entries = List.of(
            entry("a", "decode", "malformed JSON at line 1, column 7", "spans", "2026-11-01T10:00:00Z", List.of()),
            entry("b", "decode", "malformed JSON at line 1, column 31", "logs", "2026-11-02T10:00:00Z", List.of()),
            entry("c", "handler", "cannot take fail-1", "spans", "2026-11-03T10:00:00Z", List.of("run-1")),
            entry("d", "decode", "malformed JSON at line 2, column 1", "spans", "2026-11-04T10:00:00Z", List.of()));

    @Test
    void oneRowPerCategoryAndReasonWithDigitsMaskedLargestFirst() {
        List<PoisonGroups.Group> groups = PoisonGroups.of(entries, PoisonGroups.Filter.NONE);
        assertThat(groups)
                .extracting(PoisonGroups.Group::category, PoisonGroups.Group::count)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("decode", 3),
                        org.assertj.core.groups.Tuple.tuple("handler", 1));
        PoisonGroups.Group decode = groups.get(0);
        assertThat(decode.reason()).isEqualTo("malformed JSON at line #, column #");
        assertThat(decode.signals()).containsExactly("logs", "spans");
        assertThat(decode.firstFailure()).isEqualTo(Instant.parse("2026-11-01T10:00:00Z"));
        assertThat(decode.lastFailure()).isEqualTo(Instant.parse("2026-11-04T10:00:00Z"));
        assertThat(decode.keys()).containsExactly("a", "b", "d");
        assertThat(decode.id()).hasSize(12).isEqualTo(PoisonGroups.id("decode", "malformed JSON at line #, column #"));
    }

    @Test
    void filtersByTimeSignalCategoryAndRun() {
        assertThat(PoisonGroups.of(
                                entries,
                                new PoisonGroups.Filter(
                                        Instant.parse("2026-11-02T00:00:00Z"),
                                        Instant.parse("2026-11-04T00:00:00Z"),
                                        null,
                                        null,
                                        null))
                        .stream()
                        .flatMap(g -> g.keys().stream()))
                .containsExactlyInAnyOrder("b", "c");
        assertThat(PoisonGroups.of(entries, new PoisonGroups.Filter(null, null, "logs", null, null)))
                .singleElement()
                .satisfies(g -> assertThat(g.keys()).containsExactly("b"));
        assertThat(PoisonGroups.of(entries, new PoisonGroups.Filter(null, null, null, "handler", null)))
                .singleElement()
                .satisfies(g -> assertThat(g.keys()).containsExactly("c"));
        assertThat(PoisonGroups.of(entries, new PoisonGroups.Filter(null, null, null, null, "run-1")))
                .singleElement()
                .satisfies(g -> assertThat(g.runIds()).containsExactly("run-1"));
        assertThat(PoisonGroups.of(entries, new PoisonGroups.Filter(null, null, null, null, "run-2")))
                .isEmpty();
    }

    @Test
    void aBrowsersLocalTimeIsUtc() {
        assertThat(ConsoleController.time("2026-11-29T19:16")).isEqualTo(Instant.parse("2026-11-29T19:16:00Z"));
        assertThat(ConsoleController.time("2026-11-29T19:16:00.5Z")).isEqualTo(Instant.parse("2026-11-29T19:16:00.5Z"));
        assertThat(ConsoleController.time(" ")).isNull();
    }

    @Test
    void aBodyThatIsNotTextHasOnlyHex() {
        assertThat(ConsoleService.text(new byte[] {0x0a, 0x01, (byte) 0xff})).isNull();
        assertThat(ConsoleService.text("{\"a\":1}\n".getBytes(java.nio.charset.StandardCharsets.UTF_8)))
                .isEqualTo("{\"a\":1}\n");
        assertThat(ConsoleService.hex(new byte[] {0x41, 0x00}))
                .startsWith("00000000  41 00 ")
                .contains("A.");
    }

    private static PoisonIndex.Entry entry(
            String key, String category, String reason, String signal, String failedAt, List<String> runs) {
        Instant at = Instant.parse(failedAt);
        PoisonMessage m =
                new PoisonMessage(0, "id-" + key, "x", "otlp_" + signal, category, reason, "E", at, at, 0, 0, 10);
        return new PoisonIndex.Entry(key, 0, m, signal, "json", runs);
    }
}
