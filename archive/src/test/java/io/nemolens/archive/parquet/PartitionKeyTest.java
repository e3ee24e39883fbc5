package io.nemolens.archive.parquet;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

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

    /** A run id, its folder value, and why. */
    static Stream<Arguments> folderValues() {
        return Stream.of(
                Arguments.of("llama3-8b-pretrain-20261129-a1b2", "llama3-8b-pretrain-20261129-a1b2", "plain: itself"),
                Arguments.of("run.7_b-3", "run.7_b-3", "plain: itself"),
                Arguments.of("A", "A", "plain: itself"),
                Arguments.of("0012", "0012", "plain: itself"),
                Arguments.of("a/b=c%d e~f", "a%2Fb%3Dc%25d%20e%7Ef", "every other byte: % and its upper-case hex"),
                Arguments.of("x'\"#*:?\\<>|+{}[]^", "x%27%22%23%2A%3A%3F%5C%3C%3E%7C%2B%7B%7D%5B%5D%5E", "punctuation"),
                Arguments.of("run\n\t\u0000\u007F\u001Fx", "run%0A%09%00%7F%1Fx", "control characters"),
                Arguments.of("été", "%C3%A9t%C3%A9", "outside ASCII: its UTF-8 bytes escaped"),
                Arguments.of("训练", "%E8%AE%AD%E7%BB%83", "CJK: its UTF-8 bytes escaped"),
                Arguments.of("launch-\uD83D\uDE80", "launch-%F0%9F%9A%80", "outside the BMP: one character of 4 bytes"),
                Arguments.of("a\uD800b", "a%3Fb", "an unpaired surrogate has no UTF-8: '?', as the column holds it"),
                Arguments.of(
                        "", "__HIVE_DEFAULT_PARTITION__", "no run id (absent is \"\" too): what readers read as NULL"),
                Arguments.of("_tmp", "%5Ftmp", "never starts like a hidden name"),
                Arguments.of(".hidden", "%2Ehidden", "never starts like a hidden name"),
                Arguments.of("__HIVE_DEFAULT_PARTITION__", "%5F_HIVE_DEFAULT_PARTITION__", "never reads as NULL"),
                Arguments.of(".", "%2E", "never a relative folder"),
                Arguments.of("..", "%2E%2E", "never a relative folder"),
                Arguments.of("v1.", "v1%2E", "Windows drops a trailing dot"),
                Arguments.of("null", "%6Eull", "DuckDB reads a folder value NULL, in any case, as NULL"),
                Arguments.of("NULL", "%4EULL", "DuckDB reads a folder value NULL, in any case, as NULL"),
                Arguments.of("nUlL", "%6EUlL", "DuckDB reads a folder value NULL, in any case, as NULL"),
                Arguments.of("nullable", "nullable", "only NULL itself"),
                Arguments.of("a_b.c", "a_b.c", "inner dots and underscores are plain"));
    }

    @ParameterizedTest(name = "{2}: {0}")
    @MethodSource("folderValues")
    void aRunIdsFolderValue(String runId, String folder, String why) {
        assertThat(PartitionKey.runFolder(runId)).as(why).isEqualTo(folder);
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
