package io.nemolens.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link of the documentation leads somewhere: in README.md, every {@code *.md} under
 * {@code docs/} and every module README ({@code *}{@code /README.md}, {@code *}{@code /*}{@code /README.md}), each
 * Markdown link or image whose target is not {@code http(s):} or {@code mailto:} names a file or folder that
 * exists (relative to the linking file; {@code /} from the repository root), and its {@code #anchor}, in the
 * same file or another Markdown file, is one of that file's headings as GitHub names them. Link syntax inside
 * fenced code blocks and inline code is not a link, and a {@code #} line inside a fenced block is not a heading.
 * Only ATX headings ({@code # ...}) count: the documentation uses no other kind.
 *
 * <p>Also: README.md stays a front door (at most 400 lines) and shows the two set-up commands as they are.
 */
class DocumentationLinksTest {

    static final Path ROOT = repositoryRoot();

    /** The two set-up commands, byte for byte (other tests and users copy them). */
    static final String RUN_COMMAND = "./mvnw -q -DskipTests package && java -XX:+ExitOnOutOfMemoryError"
            + " -XX:+UseParallelGC -Xmx512m -jar consumer-app/target/lens-consumer-app-0.1.0-SNAPSHOT-exec.jar";

    static final String TEST_COMMAND = "./mvnw verify";

    static final int README_MAX_LINES = 400;

    private static final Pattern FENCE = Pattern.compile("^ {0,3}(`{3,}|~{3,})(.*)$");
    private static final Pattern HEADING = Pattern.compile("^ {0,3}(#{1,6})(?:[ \\t]+(.*?))?(?:[ \\t]+#+)?[ \\t]*$");
    private static final Pattern BACKTICKS = Pattern.compile("`+");
    /** {@code [text](target)} or {@code ![alt](target)}, with an optional title; text may hold one level of [..]. */
    private static final Pattern LINK = Pattern.compile(
            "!?\\[(?:[^\\[\\]]|\\[[^\\[\\]]*\\])*\\]\\(\\s*(<[^>]*>|[^)\\s]+)(?:\\s+(?:\"[^\"]*\"|'[^']*'))?\\s*\\)");
    /** A reference definition: {@code [label]: target}. */
    private static final Pattern REFERENCE = Pattern.compile("^ {0,3}\\[[^\\]]+\\]:\\s*(<[^>]*>|\\S+)");

    private static final Pattern LINE_ANCHOR = Pattern.compile("L\\d+(-L\\d+)?");

    @Test
    void everyRelativeLinkAndAnchorResolves() throws IOException {
        List<Path> files = documentationFiles();
        assertThat(files)
                .as("the documentation files found under %s", ROOT)
                .contains(ROOT.resolve("README.md"))
                .anySatisfy(f -> assertThat(ROOT.relativize(f).toString()).startsWith("docs/"));

        Map<Path, Set<String>> anchorsByFile = new HashMap<>();
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path file : files) {
            for (Link link : links(Files.readAllLines(file))) {
                String target = link.target();
                if (isExternal(target)) {
                    continue;
                }
                checked++;
                if (!resolves(file, target, anchorsByFile)) {
                    broken.add(ROOT.relativize(file) + ":" + link.line() + ": " + target);
                }
            }
        }
        assertThat(checked).as("relative links checked").isPositive();
        assertThat(broken)
                .as("links whose file, folder or heading does not exist (file:line: target)")
                .isEmpty();
    }

    @Test
    void theReadmeIsAFrontDoorWithTheSetUpCommandsAsTheyAre() throws IOException {
        List<String> readme = Files.readAllLines(ROOT.resolve("README.md"));
        assertThat(readme).as("README.md's lines").hasSizeLessThanOrEqualTo(README_MAX_LINES);
        assertThat(readme).as("README.md's set-up commands").contains(RUN_COMMAND, TEST_COMMAND);
    }

    /** The checker itself: GitHub's anchor names, fences, inline code and duplicates. */
    @Test
    void headingsAndLinksAreReadAsGitHubReadsThem() {
        List<String> doc = List.of(
                "# NeMo Lens: the consumer",
                "## The `gpu_metrics` and `node_metrics` tables",
                "### Open files: what a Parquet writer holds (issue 18)",
                "## Several instances",
                "## Several instances",
                "## Several instances ##",
                "## See [the archive](docs/archive.md)",
                "```bash",
                "# not a heading [nor a link](nowhere.md)",
                "```",
                "````",
                "```",
                "# still inside the four-backtick fence",
                "````",
                "A [link](docs/a.md#x) and `[code](not-a-link.md)` and ``a `[b](c)` d`` and ![img](i.png \"title\").");
        assertThat(headingAnchors(doc))
                .containsExactly(
                        "nemo-lens-the-consumer",
                        "the-gpu_metrics-and-node_metrics-tables",
                        "open-files-what-a-parquet-writer-holds-issue-18",
                        "several-instances",
                        "several-instances-1",
                        "several-instances-2",
                        "see-the-archive");
        assertThat(links(doc))
                .containsExactly(new Link(7, "docs/archive.md"), new Link(15, "docs/a.md#x"), new Link(15, "i.png"));
        assertThat(anchor("Levers: spans read straight from the body, both encodings (7th session)"))
                .isEqualTo("levers-spans-read-straight-from-the-body-both-encodings-7th-session");
        assertThat(anchor("Ünïcode — and_underscores")).isEqualTo("ünïcode--and_underscores");
    }

    /** A link's target and the (1-based) line it is on. */
    record Link(int line, String target) {}

    /** README.md, every Markdown file under docs/, and the module READMEs one and two levels down. */
    static List<Path> documentationFiles() throws IOException {
        Set<Path> files = new LinkedHashSet<>();
        files.add(ROOT.resolve("README.md"));
        Path docs = ROOT.resolve("docs");
        if (Files.isDirectory(docs)) {
            try (Stream<Path> walk = Files.walk(docs)) {
                walk.filter(p -> p.toString().endsWith(".md"))
                        .filter(Files::isRegularFile)
                        .filter(p -> !excluded(ROOT.relativize(p)))
                        .sorted()
                        .forEach(files::add);
            }
        }
        try (Stream<Path> walk = Files.walk(ROOT, 3)) {
            walk.filter(p -> p.getFileName().toString().equals("README.md"))
                    .filter(Files::isRegularFile)
                    .filter(p -> {
                        Path relative = ROOT.relativize(p);
                        return relative.getNameCount() >= 2 && !excluded(relative);
                    })
                    .sorted()
                    .forEach(files::add);
        }
        return List.copyOf(files);
    }

    private static boolean excluded(Path relative) {
        for (Path part : relative) {
            String name = part.toString();
            if (name.equals("target") || name.equals("node_modules") || name.startsWith(".")) {
                return true;
            }
        }
        return false;
    }

    private static boolean isExternal(String target) {
        String lower = target.toLowerCase(Locale.ROOT);
        return lower.startsWith("http://") || lower.startsWith("https://") || lower.startsWith("mailto:");
    }

    private static boolean resolves(Path from, String target, Map<Path, Set<String>> anchorsByFile) {
        int hash = target.indexOf('#');
        String pathPart = hash < 0 ? target : target.substring(0, hash);
        String fragment = hash < 0 ? null : decode(target.substring(hash + 1));
        int query = pathPart.indexOf('?');
        if (query >= 0) {
            pathPart = pathPart.substring(0, query);
        }
        Path to;
        if (pathPart.isEmpty()) {
            to = from;
        } else {
            String decoded = decode(pathPart);
            to = (decoded.startsWith("/")
                            ? ROOT.resolve(decoded.substring(1))
                            : from.getParent().resolve(decoded))
                    .normalize();
            if (!Files.exists(to)) {
                return false;
            }
        }
        if (fragment == null || fragment.isEmpty()) {
            return true;
        }
        if (Files.isRegularFile(to) && to.getFileName().toString().endsWith(".md")) {
            Set<String> anchors = anchorsByFile.computeIfAbsent(to, DocumentationLinksTest::anchorsOf);
            return anchors.contains(fragment);
        }
        // GitHub's line anchors on a source file; any other anchor into a non-Markdown file names nothing
        return Files.isRegularFile(to) && LINE_ANCHOR.matcher(fragment).matches();
    }

    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    private static Set<String> anchorsOf(Path file) {
        try {
            return new TreeSet<>(headingAnchors(Files.readAllLines(file)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The anchors of a Markdown file's headings, in order, with GitHub's {@code -1}, {@code -2} for repeats. */
    static List<String> headingAnchors(List<String> lines) {
        List<String> anchors = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean[] inFence = fencedLines(lines);
        for (int i = 0; i < lines.size(); i++) {
            if (inFence[i]) {
                continue;
            }
            Matcher m = HEADING.matcher(lines.get(i));
            if (!m.matches()) {
                continue;
            }
            String text = m.group(2) == null ? "" : m.group(2);
            String base = anchor(text);
            int count = seen.merge(base, 1, Integer::sum);
            anchors.add(count == 1 ? base : base + "-" + (count - 1));
        }
        return anchors;
    }

    /**
     * A heading's anchor as GitHub makes it: the heading's text (a link counts as its text), lower case, every
     * character but letters, digits, spaces, {@code -} and {@code _} removed, spaces made {@code -}.
     */
    static String anchor(String heading) {
        String text = heading.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1").toLowerCase(Locale.ROOT);
        StringBuilder out = new StringBuilder();
        text.codePoints().forEach(c -> {
            if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                out.appendCodePoint(c);
            } else if (c == ' ') {
                out.append('-');
            }
        });
        return out.toString();
    }

    /** The links and images of a Markdown file outside fenced blocks and inline code, with their lines. */
    static List<Link> links(List<String> lines) {
        List<Link> links = new ArrayList<>();
        boolean[] inFence = fencedLines(lines);
        for (int i = 0; i < lines.size(); i++) {
            if (inFence[i]) {
                continue;
            }
            String line = withoutInlineCode(lines.get(i));
            Matcher m = LINK.matcher(line);
            while (m.find()) {
                links.add(new Link(i + 1, unbracketed(m.group(1))));
            }
            Matcher ref = REFERENCE.matcher(line);
            if (ref.find()) {
                links.add(new Link(i + 1, unbracketed(ref.group(1))));
            }
        }
        return links;
    }

    private static String unbracketed(String target) {
        return target.startsWith("<") && target.endsWith(">") ? target.substring(1, target.length() - 1) : target;
    }

    /** Which lines are inside a fenced code block, its fences included. */
    private static boolean[] fencedLines(List<String> lines) {
        boolean[] fenced = new boolean[lines.size()];
        String open = null;
        for (int i = 0; i < lines.size(); i++) {
            Matcher m = FENCE.matcher(lines.get(i));
            if (open == null) {
                if (m.matches() && !(m.group(1).charAt(0) == '`' && m.group(2).contains("`"))) {
                    open = m.group(1);
                    fenced[i] = true;
                }
            } else {
                fenced[i] = true;
                if (m.matches()
                        && m.group(1).charAt(0) == open.charAt(0)
                        && m.group(1).length() >= open.length()
                        && m.group(2).isBlank()) {
                    open = null;
                }
            }
        }
        return fenced;
    }

    /** The line with every code span blanked out: a run of n backticks up to the next run of exactly n. */
    private static String withoutInlineCode(String line) {
        StringBuilder out = new StringBuilder(line);
        Matcher m = BACKTICKS.matcher(line);
        int from = 0;
        while (m.find(from)) {
            int length = m.end() - m.start();
            Matcher close = BACKTICKS.matcher(line);
            int searchFrom = m.end();
            int end = -1;
            while (close.find(searchFrom)) {
                if (close.end() - close.start() == length) {
                    end = close.end();
                    break;
                }
                searchFrom = close.end();
            }
            if (end < 0) {
                from = m.end();
                continue;
            }
            for (int j = m.start(); j < end; j++) {
                out.setCharAt(j, ' ');
            }
            from = end;
        }
        return out.toString();
    }

    /** The directory holding {@code mvnw}, from the working directory upwards. */
    private static Path repositoryRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve("mvnw")) && Files.isRegularFile(dir.resolve("README.md"))) {
                return dir;
            }
        }
        throw new IllegalStateException(
                "no directory holding mvnw above " + Path.of("").toAbsolutePath());
    }
}
