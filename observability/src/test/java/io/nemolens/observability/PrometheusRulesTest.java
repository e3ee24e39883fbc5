package io.nemolens.observability;

import static io.nemolens.observability.StackFiles.list;
import static io.nemolens.observability.StackFiles.map;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The Prometheus rules operators load ({@code observability/prometheus/}): promtool accepts both rule files and
 * passes every unit test under {@code tests/}; every alert has a {@code for:}, a severity, a summary naming the
 * instance (the run, for an alert per training run) and the meter, a description and a runbook that exists in
 * {@code docs/alerts.md}; every alert is tested firing and quiet; every selector names the documented job.
 * promtool is required: without it this test fails (it never skips), saying how to install it.
 */
class PrometheusRulesTest {

    static final Path PROMETHEUS = StackFiles.OBSERVABILITY.resolve("prometheus");

    static final Path TESTS = PROMETHEUS.resolve("tests");

    static final Path ALERTS_DOC = StackFiles.ROOT.resolve("docs/alerts.md");

    static final String ALERT_RULES = "lens-alerts.yml";

    static final String RECORDING_RULES = "lens-recording.yml";

    static final List<String> RULE_FILES = List.of(ALERT_RULES, RECORDING_RULES);

    /** The job the rules select on, as docs/alerts.md says; operators who scrape under another name edit it. */
    static final String JOB_SELECTOR = "job=\"lens-consumer\"";

    /** An environment variable naming the promtool to run, instead of the one on PATH. */
    static final String PROMTOOL_ENV = "LENS_TEST_PROMTOOL";

    /** The alerts other tests and the operators' routing rely on, by name. */
    private static final List<String> REQUIRED_ALERTS = List.of(
            "LensConsumerDown",
            "LensConsumerNotConsuming",
            "LensArchiveLagHigh",
            "LensSpoolAboveCommitThreshold",
            "LensSpoolNearlyFull",
            "LensArchiveNotAccepting",
            "LensObjectStoreFailing",
            "LensClaimRegistryFailing",
            "LensArchiveTablesFailing",
            "LensTableMaintenanceFailing",
            "LensSpoolDamaged",
            "LensPoisonQueueGrowing",
            "LensPoisonTooOld",
            "LensParkingLotNotEmpty",
            "LensRestarting",
            "LensHeapNearlyFull",
            "LensAckLatencyHigh",
            "LensMessagesPoisoned",
            "LensRunStraggler",
            "LensRunWatchFull");

    /**
     * The alerts about a training run rather than an instance: every instance watches the ranks it consumes, so
     * they aggregate over the instances {@code by (job, run)} and keep no {@code instance} label.
     */
    private static final Set<String> RUN_ALERTS = Set.of("LensRunStraggler");

    private static final String RUN_AGGREGATION = "by (job, run)";

    private static final Set<String> SEVERITIES = Set.of("critical", "warning", "info");

    private static final Pattern DURATION = Pattern.compile("(\\d+(ms|[smhdwy]))+");

    private static final Pattern RUNBOOK = Pattern.compile("docs/alerts\\.md#([a-z0-9_-]+)");

    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.+?)\\s*#*\\s*$");

    /** A meter of the service (or {@code up}) with the label matchers that may follow it. */
    private static final Pattern SELECTOR =
            Pattern.compile("\\b(lens_[a-z0-9_]+|jvm_[a-z0-9_]+|process_[a-z0-9_]+|up)\\b(\\s*\\{([^}]*)})?");

    private static final Pattern QUOTED = Pattern.compile("\"[^\"]*\"|'[^']*'");

    private static final Pattern BACKTICKED = Pattern.compile("`([a-zA-Z_:][a-zA-Z0-9_:]*)`");

    private static final Pattern RECORD_NAME = Pattern.compile("[a-z_]+:[a-z0-9_]+:[a-z0-9_]+");

    private static final long PROMTOOL_TIMEOUT_SECONDS = 120;

    @TempDir
    Path tmp;

    // --- promtool ---

    @ParameterizedTest
    @FieldSource("RULE_FILES")
    void promtoolChecksRules(String file) throws Exception {
        assertPromtoolSucceeds("check", "rules", file);
    }

    @ParameterizedTest
    @MethodSource("testFiles")
    void promtoolUnitTestsPass(String file) throws Exception {
        assertPromtoolSucceeds("test", "rules", "tests/" + file);
    }

    static Stream<String> testFiles() throws IOException {
        try (Stream<Path> files = Files.list(TESTS)) {
            List<String> names = files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".yml") || n.endsWith(".yaml"))
                    .sorted()
                    .toList();
            assertThat(names).as("promtool unit tests in %s", TESTS).isNotEmpty();
            return names.stream();
        }
    }

    private void assertPromtoolSucceeds(String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(promtool());
        command.addAll(List.of(args));
        Path output = tmp.resolve("promtool.out");
        Process process = new ProcessBuilder(command)
                .directory(PROMETHEUS.toFile())
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        if (!process.waitFor(PROMTOOL_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            fail("%s did not finish within %d s:%n%s", command, PROMTOOL_TIMEOUT_SECONDS, read(output));
        }
        assertThat(process.exitValue())
                .as("%s in %s exited with %d:%n%s", command, PROMETHEUS, process.exitValue(), read(output))
                .isZero();
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8);
    }

    /** {@value #PROMTOOL_ENV}, else promtool on PATH; fails (never skips) when there is none. */
    static String promtool() {
        String configured = System.getenv(PROMTOOL_ENV);
        if (configured != null && !configured.isBlank()) {
            if (!Files.isExecutable(Path.of(configured))) {
                fail("%s=%s is not an executable file", PROMTOOL_ENV, configured);
            }
            return configured;
        }
        String path = System.getenv("PATH");
        for (String dir : (path == null ? "" : path).split(File.pathSeparator)) {
            if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, "promtool"))) {
                return Path.of(dir, "promtool").toString();
            }
        }
        throw new AssertionError("promtool is not on PATH: it checks and unit-tests the Prometheus rules in "
                + PROMETHEUS + ". Install it (Debian/Ubuntu: apt-get install prometheus; or the promtool binary of"
                + " a Prometheus 2.42+ release) or set " + PROMTOOL_ENV + " to its path.");
    }

    // --- the rules, read as YAML ---

    /** The rules of a file's one group, which must have the given name. */
    private static List<Map<String, Object>> rules(String file, String group) {
        Map<String, Object> yaml = StackFiles.yaml(PROMETHEUS.resolve(file));
        List<Object> groups = list(yaml.get("groups"), file + ": groups");
        assertThat(groups).as("%s: groups", file).hasSize(1);
        Map<String, Object> only = map(groups.get(0), file + ": groups[0]");
        assertThat(only.get("name")).as("%s: the group's name", file).isEqualTo(group);
        List<Map<String, Object>> rules = new ArrayList<>();
        for (Object rule : list(only.get("rules"), file + ": rules")) {
            rules.add(map(rule, file + ": a rule"));
        }
        assertThat(rules).as("%s: rules", file).isNotEmpty();
        return rules;
    }

    private static Map<String, Map<String, Object>> alerts() {
        Map<String, Map<String, Object>> alerts = new LinkedHashMap<>();
        for (Map<String, Object> rule : rules(ALERT_RULES, "lens-consumer-alerts")) {
            String name = String.valueOf(rule.get("alert"));
            assertThat(rule).as("%s: every rule is an alert", ALERT_RULES).containsKey("alert");
            assertThat(alerts.put(name, rule))
                    .as("%s: alert %s defined twice", ALERT_RULES, name)
                    .isNull();
        }
        return alerts;
    }

    private static String text(Map<String, Object> map, String key) {
        Object value = map.get(key);
        return value == null ? "" : String.valueOf(value).trim();
    }

    @Test
    void everyRequiredAlertIsDefined() {
        assertThat(alerts().keySet()).containsAll(REQUIRED_ALERTS);
    }

    @Test
    void everyAlertHasForSeverityAndAnnotations() {
        List<String> problems = new ArrayList<>();
        alerts().forEach((name, rule) -> {
            String forValue = text(rule, "for");
            if (!DURATION.matcher(forValue).matches() || forValue.matches("(0+(ms|[smhdwy]))+")) {
                problems.add(name + ": for: should be a duration above 0, is '" + forValue + "'");
            }
            Map<String, Object> labels = map(rule.get("labels"), name + ": labels");
            String severity = text(labels, "severity");
            if (!SEVERITIES.contains(severity)) {
                problems.add(name + ": label severity should be one of " + SEVERITIES + ", is '" + severity + "'");
            }
            Map<String, Object> annotations = map(rule.get("annotations"), name + ": annotations");
            String summary = text(annotations, "summary");
            boolean perRun = RUN_ALERTS.contains(name);
            String subject = perRun ? "{{ $labels.run }}" : "{{ $labels.instance }}";
            if (!summary.contains(subject)) {
                problems.add(name + ": the summary should name " + subject + ": " + summary);
            }
            if (perRun) {
                if (!text(rule, "expr").contains(RUN_AGGREGATION)) {
                    problems.add(name + ": an alert per run aggregates over the instances " + RUN_AGGREGATION);
                }
                annotations.forEach((key, value) -> {
                    if (String.valueOf(value).contains("$labels.instance")) {
                        problems.add(name + ": annotation " + key + " reads $labels.instance, which an alert per run"
                                + " does not keep");
                    }
                });
            }
            Set<String> meters = meters(text(rule, "expr"));
            Set<String> named = new LinkedHashSet<>();
            Matcher backticked = BACKTICKED.matcher(summary);
            while (backticked.find()) {
                named.add(meterFamily(backticked.group(1)));
            }
            if (named.stream().noneMatch(meters::contains)) {
                problems.add(name + ": the summary should name (in backticks) a meter of the expression " + meters
                        + ": " + summary);
            }
            if (text(annotations, "description").isEmpty()) {
                problems.add(name + ": no description annotation");
            }
        });
        assertThat(problems).isEmpty();
    }

    @Test
    void everyRunbookIsAHeadingOfTheAlertsPage() throws IOException {
        Set<String> anchors = anchors(ALERTS_DOC);
        List<String> problems = new ArrayList<>();
        alerts().forEach((name, rule) -> {
            String url = text(map(rule.get("annotations"), name + ": annotations"), "runbook_url");
            Matcher m = RUNBOOK.matcher(url);
            if (!m.matches()) {
                problems.add(name + ": runbook_url should be docs/alerts.md#<anchor>, is '" + url + "'");
            } else if (!anchors.contains(m.group(1))) {
                problems.add(name + ": runbook_url " + url + " names no heading of docs/alerts.md (anchors: " + anchors
                        + ")");
            }
        });
        assertThat(problems).isEmpty();
    }

    @Test
    void everyAlertIsTestedFiringAndQuiet() throws IOException {
        Set<String> firing = new LinkedHashSet<>();
        Set<String> quiet = new LinkedHashSet<>();
        for (String file : testFiles().toList()) {
            Map<String, Object> yaml = StackFiles.yaml(TESTS.resolve(file));
            for (Object test : list(yaml.get("tests"), file + ": tests")) {
                Map<String, Object> group = map(test, file + ": a test");
                for (Object item : list(group.get("alert_rule_test"), file + ": alert_rule_test")) {
                    Map<String, Object> check = map(item, file + ": an alert_rule_test");
                    List<Object> expected = list(check.get("exp_alerts"), file + ": exp_alerts");
                    boolean specific = !expected.isEmpty()
                            && expected.stream()
                                    .map(e -> map(e, file + ": an exp_alert"))
                                    .allMatch(e -> !map(e.get("exp_labels"), file + ": exp_labels")
                                                    .isEmpty()
                                            && !map(e.get("exp_annotations"), file + ": exp_annotations")
                                                    .isEmpty());
                    (specific ? firing : quiet).add(text(check, "alertname"));
                }
            }
        }
        Set<String> names = alerts().keySet();
        assertThat(names)
                .as("alerts without a promtool test in which they fire, with labels and annotations")
                .allMatch(firing::contains, "fires in a test");
        assertThat(names)
                .as("alerts without a promtool test in which they stay quiet (exp_alerts: [])")
                .allMatch(quiet::contains, "stays quiet in a test");
    }

    @Test
    void everySelectorNamesTheDocumentedJob() {
        List<String> problems = new ArrayList<>();
        for (String file : RULE_FILES) {
            String group = file.equals(ALERT_RULES) ? "lens-consumer-alerts" : "lens-consumer-recording";
            for (Map<String, Object> rule : rules(file, group)) {
                String name = rule.containsKey("alert") ? text(rule, "alert") : text(rule, "record");
                Matcher m = SELECTOR.matcher(text(rule, "expr"));
                while (m.find()) {
                    String matchers = m.group(3) == null ? "" : m.group(3);
                    if (!matchers.contains(JOB_SELECTOR)) {
                        problems.add(file + ": " + name + ": " + m.group() + " does not select " + JOB_SELECTOR);
                    }
                }
            }
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void recordingRulesFollowTheNamingConventionAndAreDocumented() throws IOException {
        String doc = read(ALERTS_DOC);
        List<String> problems = new ArrayList<>();
        for (Map<String, Object> rule : rules(RECORDING_RULES, "lens-consumer-recording")) {
            String name = text(rule, "record");
            if (!RECORD_NAME.matcher(name).matches()) {
                problems.add(name + ": not a level:metric:operations name");
            }
            if (!doc.contains("`" + name + "`")) {
                problems.add(name + ": not listed in docs/alerts.md");
            }
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void theAlertsPageListsEveryAlert() throws IOException {
        String doc = read(ALERTS_DOC);
        assertThat(alerts().keySet())
                .as("alerts missing from the table of docs/alerts.md")
                .allMatch(name -> doc.contains("| `" + name + "` |"), "in the table");
    }

    /** The metric families an expression reads ({@code _bucket}, {@code _total}, ... taken off). */
    static Set<String> meters(String expr) {
        Set<String> meters = new LinkedHashSet<>();
        Matcher m = SELECTOR.matcher(QUOTED.matcher(expr).replaceAll("\"\""));
        while (m.find()) {
            meters.add(meterFamily(m.group(1)));
        }
        return meters;
    }

    private static String meterFamily(String name) {
        return name.replaceFirst("_(bucket|count|sum|total)$", "");
    }

    /** The anchors GitHub gives a Markdown file's headings (code blocks left out). */
    static Set<String> anchors(Path markdown) throws IOException {
        Set<String> anchors = new LinkedHashSet<>();
        boolean code = false;
        for (String line : Files.readAllLines(markdown, StandardCharsets.UTF_8)) {
            if (line.startsWith("```")) {
                code = !code;
                continue;
            }
            Matcher m = HEADING.matcher(line);
            if (!code && m.matches()) {
                anchors.add(anchor(m.group(1)));
            }
        }
        return anchors;
    }

    /** GitHub's anchor of a heading: lowercase, punctuation other than '-' and '_' removed, spaces to '-'. */
    static String anchor(String heading) {
        return heading.toLowerCase(Locale.ROOT)
                .replaceAll("[^\\p{L}\\p{N}\\s_-]", "")
                .replace(' ', '-');
    }

    @Test
    void anchorsFollowGitHub() {
        assertThat(anchor("LensConsumerDown")).isEqualTo("lensconsumerdown");
        assertThat(anchor("Loading the rules")).isEqualTo("loading-the-rules");
        assertThat(anchor("The `poison` endpoint")).isEqualTo("the-poison-endpoint");
        assertThat(anchor("Memory: heap_size, -Xmx!")).isEqualTo("memory-heap_size--xmx");
    }
}
