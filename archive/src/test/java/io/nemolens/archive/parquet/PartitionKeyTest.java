package io.nemolens.archive.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The folder value of a run id (README, "Partition folders"): bounded, ASCII, reversible by URL-decoding
 * unless cut, NULL for no run id, and never hidden or read as NULL by mistake. Every folder is also made on
 * the test's real file system.
 */
class PartitionKeyTest {

    /** {@code run_id=} and the value: at most 127 bytes, half of the 255 file systems hold. */
    private static final int MAX_FOLDER_BYTES = 127;

    private static final String CJK = "大规模语言模型预训练";

    @TempDir
    Path root;

    @Test
    void plainIdsAreTheirOwnFolderValue() {
        for (String id : List.of("llama3-8b-pretrain-20261129-a1b2", "run.7_b-3", "A", "0012")) {
            assertThat(PartitionKey.runFolder(id)).isEqualTo(id);
        }
    }

    @Test
    void everyOtherByteIsEscapedAsPercentAndItsUpperCaseHex() {
        assertThat(PartitionKey.runFolder("a/b=c%d e~f")).isEqualTo("a%2Fb%3Dc%25d%20e%7Ef");
        assertThat(PartitionKey.runFolder("x'\"#*:?\\<>|+{}[]^"))
                .isEqualTo("x%27%22%23%2A%3A%3F%5C%3C%3E%7C%2B%7B%7D%5B%5D%5E");
        assertThat(PartitionKey.runFolder("run\n\t\u0000\u007F\u001Fx")).isEqualTo("run%0A%09%00%7F%1Fx");
    }

    @Test
    void charactersOutsideAsciiAreTheirUtf8BytesEscaped() {
        assertThat(PartitionKey.runFolder("été")).isEqualTo("%C3%A9t%C3%A9");
        assertThat(PartitionKey.runFolder("训练")).isEqualTo("%E8%AE%AD%E7%BB%83");
        // outside the BMP: one character of four bytes, not two halves written as '?'
        assertThat(PartitionKey.runFolder("launch-\uD83D\uDE80")).isEqualTo("launch-%F0%9F%9A%80");
        // an unpaired surrogate has no UTF-8: '?', as the run_id column holds it
        assertThat(PartitionKey.runFolder("a\uD800b")).isEqualTo("a%3Fb");
    }

    @Test
    void noRunIdIsTheFolderValueReadersReadAsNull() {
        // an absent nemo.run.id is "" too (TelemetryRecord.runId()); the column holds NULL for both
        assertThat(PartitionKey.runFolder("")).isEqualTo("__HIVE_DEFAULT_PARTITION__");
    }

    @Test
    void aValueNeverStartsLikeAHiddenNameNorReadsAsNull() {
        assertThat(PartitionKey.runFolder("_tmp")).isEqualTo("%5Ftmp");
        assertThat(PartitionKey.runFolder(".hidden")).isEqualTo("%2Ehidden");
        assertThat(PartitionKey.runFolder("__HIVE_DEFAULT_PARTITION__")).isEqualTo("%5F_HIVE_DEFAULT_PARTITION__");
        assertThat(PartitionKey.runFolder(".")).isEqualTo("%2E");
        assertThat(PartitionKey.runFolder("..")).isEqualTo("%2E%2E");
        // Windows drops a trailing dot
        assertThat(PartitionKey.runFolder("v1.")).isEqualTo("v1%2E");
        // DuckDB reads a folder value NULL, in any case, as NULL
        assertThat(PartitionKey.runFolder("null")).isEqualTo("%6Eull");
        assertThat(PartitionKey.runFolder("NULL")).isEqualTo("%4EULL");
        assertThat(PartitionKey.runFolder("nUlL")).isEqualTo("%6EUlL");
        assertThat(PartitionKey.runFolder("nullable")).isEqualTo("nullable");
        assertThat(PartitionKey.runFolder("a_b.c")).isEqualTo("a_b.c");
    }

    @Test
    void aValueUpTo120BytesEscapedIsKeptWhole() {
        String exactly = "r".repeat(120);
        assertThat(PartitionKey.runFolder(exactly)).isEqualTo(exactly);
        // 20 characters of two UTF-8 bytes: 40 escapes of 3 bytes, 120 bytes
        String escaped = "é".repeat(20);
        assertThat(PartitionKey.runFolder(escaped)).hasSize(120).doesNotContain("~");
    }

    @Test
    void aLongerValueKeepsAReadablePrefixAndAHashOfTheWholeId() {
        String longer = "r".repeat(121);
        assertThat(PartitionKey.runFolder(longer)).matches("r{103}~[0-9a-f]{16}");
        // the old rule's limits: 248 characters made a folder of exactly 255 bytes, 249 one too long
        for (int length : List.of(248, 249, 5_000)) {
            String id = "pretrain-" + "x".repeat(length - 9);
            String folder = PartitionKey.runFolder(id);
            assertThat(folder).startsWith("pretrain-x").matches("[A-Za-z0-9._-]{103}~[0-9a-f]{16}");
            assertFolderIsMade(folder);
        }
    }

    @Test
    void aLongValueIsCutAfterAWholeCharacter() {
        // 28 CJK characters: 252 bytes escaped, too long as a folder name under the old rule
        String cjk = (CJK + CJK + CJK).substring(0, 28);
        String folder = PartitionKey.runFolder(cjk);
        String prefix = folder.substring(0, folder.indexOf('~'));
        // 9 escaped bytes a character: 11 whole characters fit the 103 bytes of the prefix
        assertThat(URLDecoder.decode(prefix, StandardCharsets.UTF_8)).isEqualTo(cjk.substring(0, 11));
        assertThat(folder).matches("(%[0-9A-F]{2}){33}~[0-9a-f]{16}");
        assertFolderIsMade(folder);

        String emoji = "\uD83D\uDE80".repeat(40); // 12 escaped bytes each
        String emojiFolder = PartitionKey.runFolder(emoji);
        assertThat(URLDecoder.decode(emojiFolder.substring(0, emojiFolder.indexOf('~')), StandardCharsets.UTF_8))
                .isEqualTo("\uD83D\uDE80".repeat(8));
    }

    @Test
    void differentIdsGetDifferentFoldersAndTheSameIdAlwaysTheSame() {
        String base = "pretrain-" + "x".repeat(200);
        List<String> ids = List.of(
                "",
                "null",
                "%6Eull",
                "__HIVE_DEFAULT_PARTITION__",
                "_tmp",
                "%5Ftmp",
                "a~b",
                "a%7Eb",
                base,
                base + "a",
                base + "b",
                "é",
                "%C3%A9");
        Set<String> folders = new HashSet<>();
        for (String id : ids) {
            assertThat(folders.add(PartitionKey.runFolder(id))).as(id).isTrue();
            assertThat(PartitionKey.runFolder(id)).isEqualTo(PartitionKey.runFolder(id));
        }
    }

    @Test
    void everyValueNotCutUrlDecodesToTheIdAndEveryFolderIsAsciiAndMade() {
        List<String> ids = List.of(
                "llama3-8b",
                "a/b=c%d e~f+g",
                "run\n\t\u0007x",
                "été",
                CJK,
                "launch-\uD83D\uDE80-\uD83E\uDDEA",
                "_tmp",
                ".hidden",
                "v1.",
                "NULL",
                "__HIVE_DEFAULT_PARTITION__");
        for (String id : ids) {
            String folder = PartitionKey.runFolder(id);
            assertThat(folder).as(id).matches("[A-Za-z0-9._%-]+");
            assertThat(URLDecoder.decode(folder, StandardCharsets.UTF_8)).isEqualTo(id);
            assertFolderIsMade(folder);
        }
        assertFolderIsMade(PartitionKey.runFolder(""));
    }

    private void assertFolderIsMade(String runFolder) {
        String name = "run_id=" + runFolder;
        assertThat(name.getBytes(StandardCharsets.UTF_8).length).as(name).isLessThanOrEqualTo(MAX_FOLDER_BYTES);
        Path dir = root.resolve(name);
        try {
            Files.createDirectories(dir);
        } catch (java.io.IOException e) {
            throw new AssertionError("the file system refuses " + name, e);
        }
        assertThat(dir).isDirectory();
    }
}
