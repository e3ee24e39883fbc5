package io.nemolens.observability;

import static io.nemolens.observability.StackFiles.OBSERVABILITY;
import static io.nemolens.observability.StackFiles.ROOT;
import static io.nemolens.observability.StackFiles.at;
import static io.nemolens.observability.StackFiles.containerPorts;
import static io.nemolens.observability.StackFiles.environment;
import static io.nemolens.observability.StackFiles.list;
import static io.nemolens.observability.StackFiles.map;
import static io.nemolens.observability.StackFiles.mounts;
import static io.nemolens.observability.StackFiles.service;
import static io.nemolens.observability.StackFiles.services;
import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.observability.StackFiles.Mount;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The optional monitoring of the compose profile {@code monitoring}, checked without Docker: Prometheus and Grafana
 * exist only under the profile in both compose files; Prometheus scrapes the consumer and the broker where the
 * compose files, the service's defaults ({@code io/nemolens/app/service.yml}) and the broker's configuration put them, and loads the
 * mounted rules; Grafana's provisioning points at the stack's Prometheus and the mounted dashboard; the dashboard
 * filters every query by its {@code job} and {@code instance} variables and reads only meters the service exposes
 * (or recording rules of {@code lens-recording.yml}); {@code docs/dashboard.md} lists every panel with its queries.
 */
class MonitoringStackTest {

    static final List<String> COMPOSE_FILES = StackFiles.COMPOSE_FILES;

    static final String PROFILE = "monitoring";

    private static final String PROMETHEUS = "prometheus";

    private static final String GRAFANA = "grafana";

    private static final String CONSUMER = "lens-consumer";

    private static final String BROKER = "rabbitmq";

    private static final String PROMETHEUS_CONFIG = "./observability/prometheus/prometheus.yml";

    /** The rules another file of this folder defines; compose mounts them, prometheus.yml loads them. */
    private static final List<String> RULES =
            List.of("./observability/prometheus/lens-alerts.yml", "./observability/prometheus/lens-recording.yml");

    private static final String DATASOURCES = "./observability/grafana/provisioning/datasources/prometheus.yml";

    private static final String DASHBOARD_PROVIDERS = "./observability/grafana/provisioning/dashboards/lens.yml";

    private static final String DASHBOARD_FILE = "./observability/grafana/lens-consumer.json";

    private static final String GRAFANA_PROVISIONING = "/etc/grafana/provisioning";

    /** rabbitmq_prometheus's port when rabbitmq.conf sets no {@code prometheus.tcp.port}. */
    private static final int RABBITMQ_PROMETHEUS_DEFAULT_PORT = 15692;

    private static final int PROMETHEUS_DEFAULT_PORT = 9090;

    /** What {@code /actuator/prometheus} of the service has (Prometheus names), and Prometheus's own {@code up}. */
    static final Set<String> KNOWN_METERS = knownMeters();

    /** The variables a query may use: the integration test that runs every query substitutes exactly these. */
    private static final Set<String> QUERY_VARIABLES = Set.of("$job", "$instance", "$__rate_interval");

    private static final String JOB_MATCHER = "job=\"$job\"";

    private static final String INSTANCE_MATCHER = "instance=~\"$instance\"";

    private static final Pattern SELECTOR = Pattern.compile("\\{[^}]*}");

    private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"");

    private static final Pattern RANGE = Pattern.compile("\\[[^\\]]*]");

    private static final Pattern GROUPING =
            Pattern.compile("\\b(?:by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)");

    /** An identifier that is no function call (possessive, so that {@code sum (} is not read as {@code su}). */
    private static final Pattern IDENTIFIER = Pattern.compile("(?<![\\w.:$])[a-zA-Z_:][\\w:]*+(?!\\s*\\()");

    private static final Set<String> KEYWORDS = Set.of("or", "and", "unless", "bool", "offset", "inf", "nan");

    private static final Pattern VARIABLE = Pattern.compile("\\$\\{?\\w+}?");

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static Set<String> knownMeters() {
        Set<String> names = new TreeSet<>(List.of(
                "lens_messages_total",
                "lens_records_total",
                "lens_message_bytes_total",
                "lens_retries_total",
                "lens_stale_skipped_total",
                "lens_processing_lag_seconds",
                "lens_queue_depth",
                "lens_listener_consumers",
                "lens_poison_replays_total",
                "lens_poison_age_seconds",
                "lens_poison_health_max_age_seconds",
                "lens_poison_health_max_depth",
                "lens_archive_files_total",
                "lens_archive_rows_total",
                "lens_archive_bytes_total",
                "lens_archive_commit_seconds_count",
                "lens_archive_commit_seconds_sum",
                "lens_archive_lost_files_total",
                "lens_archive_duplicates_total",
                "lens_archive_spool_bytes",
                "lens_archive_spool_entries",
                "lens_archive_spool_damaged_entries",
                "lens_archive_spool_damaged_bytes",
                "lens_archive_spool_max_bytes",
                "lens_archive_spool_commit_threshold_bytes",
                "lens_archive_lag_seconds",
                "lens_archive_health_max_lag_seconds",
                "lens_archive_open_files",
                "lens_archive_buffered_bytes",
                "lens_archive_rewriting",
                "lens_archive_accepting",
                "lens_archive_store_files_total",
                "lens_archive_store_bytes_total",
                "lens_archive_store_failures_total",
                "lens_archive_store_waiting_files",
                "lens_archive_store_waiting_bytes",
                "lens_archive_store_lag_seconds",
                "lens_archive_store_failing_seconds",
                "lens_archive_claims_claimed_total",
                "lens_archive_claims_lost_total",
                "lens_archive_claims_failures_total",
                "lens_archive_claims_waiting",
                "lens_archive_claims_failing_seconds",
                // the run watch (module runwatch, RunWatchMetrics): per run (tag run), then over all runs
                "lens_run_stragglers",
                "lens_run_iteration",
                "lens_run_ranks",
                "lens_run_step_time_seconds",
                "lens_run_slowest_rank",
                "lens_run_slowest_rank_lag_ratio",
                "lens_runwatch_ranks",
                "lens_runwatch_ranks_max",
                "lens_runwatch_spans_ignored_total",
                "jvm_memory_used_bytes",
                "jvm_memory_max_bytes",
                "process_start_time_seconds",
                "process_cpu_usage",
                "up"));
        // timers: count, sum and max; only lens.ack.latency is published as a histogram (the service's defaults)
        for (String timer : List.of(
                "lens_decode_duration_seconds",
                "lens_handle_duration_seconds",
                "lens_ack_latency_seconds",
                "jvm_gc_pause_seconds")) {
            names.addAll(List.of(timer + "_count", timer + "_sum", timer + "_max"));
        }
        names.add("lens_ack_latency_seconds_bucket");
        return names;
    }

    // ---------------------------------------------------------------------------------------------------------
    // compose

    @ParameterizedTest
    @FieldSource("COMPOSE_FILES")
    void prometheusAndGrafanaExistOnlyInTheProfileAndNothingElseNeedsThem(String file) {
        Map<String, Object> compose = StackFiles.compose(file);
        Map<String, Set<String>> inProfile = new LinkedHashMap<>();
        services(compose, file).forEach((name, value) -> {
            List<String> p = ComposeObjectStoreTest.profiles(map(value, name), file + ": " + name);
            if (p.contains(PROFILE) || name.equals(PROMETHEUS) || name.equals(GRAFANA)) {
                inProfile.put(name, new TreeSet<>(p));
            }
        });
        assertThat(inProfile)
                .as("%s: services of the profile %s, and their profiles", file, PROFILE)
                .isEqualTo(Map.of(PROMETHEUS, Set.of(PROFILE), GRAFANA, Set.of(PROFILE)));
        Set<String> always = ComposeObjectStoreTest.servicesWithoutProfile(compose, file);
        for (String name : always) {
            Map<String, Object> s = service(compose, file, name);
            assertThat(dependencies(s, file + ": " + name))
                    .as("%s: %s runs without the profile, so it cannot depend on the profile's services", file, name)
                    .doesNotContainAnyElementsOf(inProfile.keySet());
            assertThat(mounts(s, name))
                    .as("%s: %s shares no volume with the monitoring", file, name)
                    .noneMatch(m -> !m.isHostPath()
                            && m.source()
                                    .equals(prometheusStorage(compose, file).source()));
        }
        assertThat(containerPorts(service(compose, file, PROMETHEUS), PROMETHEUS))
                .as("%s: prometheus publishes its UI and API", file)
                .contains(prometheusPort(compose, file));
        assertThat(containerPorts(service(compose, file, GRAFANA), GRAFANA))
                .as("%s: grafana publishes its UI", file)
                .contains(3000);
    }

    @ParameterizedTest
    @FieldSource("COMPOSE_FILES")
    void theImagesArePinnedToVersionsThatReadTheseFiles(String file) {
        Map<String, Object> compose = StackFiles.compose(file);
        assertThat(String.valueOf(service(compose, file, PROMETHEUS).get("image")))
                .as("%s: prometheus image, a pinned v2 or v3", file)
                .matches("prom/prometheus:v[23]\\.\\d+\\.\\d+");
        String grafana = String.valueOf(service(compose, file, GRAFANA).get("image"));
        Matcher m = Pattern.compile("grafana/grafana:(\\d+)\\.\\d+\\.\\d+").matcher(grafana);
        assertThat(m.matches())
                .as("%s: grafana image %s, pinned to a release", file, grafana)
                .isTrue();
        assertThat(Integer.parseInt(m.group(1)))
                .as("%s: the dashboard's schemaVersion needs Grafana 11 or later", file)
                .isGreaterThanOrEqualTo(11);
    }

    @Test
    void bothStacksRunTheSameMonitoring() {
        Map<String, Object> full = services(StackFiles.compose(StackFiles.FULL_COMPOSE), StackFiles.FULL_COMPOSE);
        Map<String, Object> minimal =
                services(StackFiles.compose(StackFiles.MINIMAL_COMPOSE), StackFiles.MINIMAL_COMPOSE);
        for (String name : List.of(PROMETHEUS, GRAFANA)) {
            assertThat(full.get(name))
                    .as("service %s should be the same in both compose files", name)
                    .isEqualTo(minimal.get(name));
        }
    }

    @ParameterizedTest
    @FieldSource("COMPOSE_FILES")
    void prometheusLoadsTheMountedConfigAndRulesAndKeepsItsDataOnAVolume(String file) {
        Map<String, Object> compose = StackFiles.compose(file);
        Map<String, Object> prometheus = service(compose, file, PROMETHEUS);
        String config = flag(prometheus, "--config.file", file).orElse("/etc/prometheus/prometheus.yml");
        assertThat(mountedAt(prometheus, PROMETHEUS_CONFIG, file))
                .as("%s: prometheus loads the config it mounts", file)
                .isEqualTo(config);

        List<String> ruleFiles = list(prometheusConfig().get("rule_files"), "prometheus.yml: rule_files").stream()
                .map(String::valueOf)
                .toList();
        List<String> mountedRules =
                RULES.stream().map(r -> mountedAt(prometheus, r, file)).toList();
        assertThat(ruleFiles)
                .as("%s: prometheus.yml loads the rules compose mounts, where it mounts them", file)
                .containsExactlyInAnyOrderElementsOf(mountedRules);
        assertThat(ruleFiles).allMatch(r -> r.startsWith("/etc/prometheus/rules/"));

        Mount storage = prometheusStorage(compose, file);
        assertThat(storage.isHostPath())
                .as("%s: prometheus keeps its data on a named volume", file)
                .isFalse();
        assertThat(map(compose.get("volumes"), "volumes")).containsKey(storage.source());
    }

    @ParameterizedTest
    @FieldSource("COMPOSE_FILES")
    void prometheusScrapesTheConsumersActuatorWhereComposeAndApplicationYmlPutIt(String file) {
        Map<String, Object> compose = StackFiles.compose(file);
        Map<String, Object> consumer = service(compose, file, CONSUMER);
        Map<String, Object> application =
                StackFiles.yaml(ROOT.resolve("consumer-app/src/main/resources/io/nemolens/app/service.yml"));
        Map<String, String> env = environment(consumer, CONSUMER);

        List<String> exposed = at(application, "management", "endpoints", "web", "exposure", "include")
                .map(v -> v instanceof List<?> l
                        ? l.stream().map(String::valueOf).toList()
                        : List.of(String.valueOf(v).split("\\s*,\\s*")))
                .orElse(List.of("health"));
        assertThat(exposed)
                .as("service.yml: management.endpoints.web.exposure.include should expose prometheus")
                .containsAnyOf("prometheus", "*");
        assertThat(at(application, "management", "endpoints", "web", "exposure", "exclude")
                        .map(String::valueOf)
                        .orElse(""))
                .as("service.yml: management.endpoints.web.exposure.exclude")
                .doesNotContain("prometheus");

        int port = Integer.parseInt(firstOf(
                env.get("MANAGEMENT_SERVER_PORT"),
                at(application, "management", "server", "port")
                        .map(String::valueOf)
                        .orElse(null),
                env.get("SERVER_PORT"),
                at(application, "server", "port").map(String::valueOf).orElse(null),
                "8080"));
        String basePath = firstOf(
                env.get("MANAGEMENT_ENDPOINTS_WEB_BASEPATH"),
                at(application, "management", "endpoints", "web", "base-path")
                        .map(String::valueOf)
                        .orElse(null),
                "/actuator");
        String endpoint = at(application, "management", "endpoints", "web", "path-mapping", "prometheus")
                .map(String::valueOf)
                .orElse("prometheus");

        Map<String, Object> job = scrapeJob(CONSUMER);
        assertThat(targets(job))
                .as("prometheus.yml: job %s scrapes the consumer's service on its server port", CONSUMER)
                .containsExactly(CONSUMER + ":" + port);
        assertThat(job.get("metrics_path"))
                .as("prometheus.yml: job %s reads the actuator's prometheus endpoint", CONSUMER)
                .isEqualTo(basePath + "/" + endpoint);
        assertThat(containerPorts(consumer, CONSUMER))
                .as("%s: %s should publish or expose the port Prometheus scrapes", file, CONSUMER)
                .contains(port);
        assertThat(job)
                .as("prometheus.yml: the endpoint answers anonymously, the job sends no credentials")
                .doesNotContainKeys("basic_auth", "authorization");
    }

    @ParameterizedTest
    @FieldSource("COMPOSE_FILES")
    void prometheusScrapesTheBrokersPluginOnItsPort(String file) throws IOException {
        Map<String, Object> compose = StackFiles.compose(file);
        String plugins = Files.readString(OBSERVABILITY.resolve("rabbitmq/enabled_plugins"));
        assertThat(plugins).as("enabled_plugins").contains("rabbitmq_prometheus");
        int port = Integer.parseInt(StackFiles.rabbitmqConf()
                .getOrDefault("prometheus.tcp.port", String.valueOf(RABBITMQ_PROMETHEUS_DEFAULT_PORT)));

        Map<String, Object> job = scrapeJob(BROKER);
        assertThat(targets(job))
                .as("prometheus.yml: job %s scrapes the broker's service on rabbitmq_prometheus's port", BROKER)
                .containsExactly(BROKER + ":" + port);
        Map<String, Object> broker = service(compose, file, BROKER);
        assertThat(String.valueOf(broker.get("image"))).startsWith("rabbitmq:");
        assertThat(mounts(broker, BROKER))
                .as("%s: the broker loads the enabled_plugins that list rabbitmq_prometheus", file)
                .contains(new Mount("./observability/rabbitmq/enabled_plugins", "/etc/rabbitmq/enabled_plugins", true));
        assertThat(containerPorts(broker, BROKER))
                .as("%s: %s should publish or expose %s", file, BROKER, port)
                .contains(port);
        assertThat(String.valueOf(job.getOrDefault("metrics_path", "/metrics")))
                .as("prometheus.yml: rabbitmq_prometheus serves /metrics (and /metrics/per-object, /metrics/detailed)")
                .startsWith("/metrics");
    }

    @ParameterizedTest
    @FieldSource("COMPOSE_FILES")
    void grafanaProvisionsTheStacksPrometheusAndTheMountedDashboard(String file) {
        Map<String, Object> compose = StackFiles.compose(file);
        Map<String, Object> grafana = service(compose, file, GRAFANA);
        Map<String, String> env = environment(grafana, GRAFANA);
        assertThat(env.getOrDefault("GF_PATHS_PROVISIONING", GRAFANA_PROVISIONING))
                .as("%s: grafana's provisioning folder", file)
                .isEqualTo(GRAFANA_PROVISIONING);
        assertThat(Path.of(mountedAt(grafana, DATASOURCES, file)).getParent())
                .as("%s: the data source is provisioned from %s/datasources", file, GRAFANA_PROVISIONING)
                .isEqualTo(Path.of(GRAFANA_PROVISIONING, "datasources"));
        assertThat(Path.of(mountedAt(grafana, DASHBOARD_PROVIDERS, file)).getParent())
                .as("%s: the dashboard provider is provisioned from %s/dashboards", file, GRAFANA_PROVISIONING)
                .isEqualTo(Path.of(GRAFANA_PROVISIONING, "dashboards"));

        List<Object> datasources =
                list(StackFiles.yaml(ROOT.resolve(DATASOURCES)).get("datasources"), DATASOURCES + ": datasources");
        assertThat(datasources).as("%s: data sources", DATASOURCES).hasSize(1);
        Map<String, Object> datasource = map(datasources.get(0), DATASOURCES + ": datasources[0]");
        assertThat(datasource.get("type")).isEqualTo("prometheus");
        assertThat(datasource.get("isDefault")).isEqualTo(true);
        URI url = URI.create(String.valueOf(datasource.get("url")));
        assertThat(url.getHost())
                .as("%s: the data source is the stack's prometheus service", DATASOURCES)
                .isEqualTo(PROMETHEUS);
        assertThat(url.getPort())
                .as("%s: the data source's port is the one prometheus listens on", DATASOURCES)
                .isEqualTo(prometheusPort(compose, file));
        assertThat(at(datasource, "jsonData", "timeInterval").map(String::valueOf))
                .as("%s: Grafana's $__rate_interval needs the scrape interval of prometheus.yml", DATASOURCES)
                .isEqualTo(at(prometheusConfig(), "global", "scrape_interval").map(String::valueOf));

        List<Object> providers = list(
                StackFiles.yaml(ROOT.resolve(DASHBOARD_PROVIDERS)).get("providers"),
                DASHBOARD_PROVIDERS + ": providers");
        assertThat(providers).as("%s: providers", DASHBOARD_PROVIDERS).hasSize(1);
        Map<String, Object> provider = map(providers.get(0), DASHBOARD_PROVIDERS + ": providers[0]");
        assertThat(provider.get("type")).isEqualTo("file");
        String path = at(provider, "options", "path").map(String::valueOf).orElseThrow();
        String dashboard = mountedAt(grafana, DASHBOARD_FILE, file);
        assertThat(Path.of(dashboard).getParent())
                .as("%s: the file provider reads the folder compose mounts the dashboard into", DASHBOARD_PROVIDERS)
                .isEqualTo(Path.of(path));
        if (env.containsKey("GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH")) {
            assertThat(env.get("GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"))
                    .as("%s: the home dashboard is the mounted one", file)
                    .isEqualTo(dashboard);
        }
    }

    @ParameterizedTest
    @FieldSource("COMPOSE_FILES")
    void grafanasCredentialsComeFromTheEnvironmentWithADevelopmentDefault(String file) {
        Map<String, String> env = environment(service(StackFiles.compose(file), file, GRAFANA), GRAFANA);
        assertThat(env.get("GF_SECURITY_ADMIN_PASSWORD"))
                .as("%s: grafana's admin password, ${VARIABLE:-development default}", file)
                .isNotNull()
                .matches("\\$\\{[A-Z_]+:-[^}]{8,}}");
        if ("true".equals(env.get("GF_AUTH_ANONYMOUS_ENABLED"))) {
            assertThat(env.get("GF_AUTH_ANONYMOUS_ORG_ROLE"))
                    .as("%s: anonymous visitors may look, not change", file)
                    .isEqualTo("Viewer");
        }
    }

    // ---------------------------------------------------------------------------------------------------------
    // the dashboard

    @Test
    void theDashboardIsAGrafana11DashboardWithItsIdentity() {
        JsonNode dashboard = dashboard();
        assertThat(dashboard.path("uid").asString()).isEqualTo("lens-consumer");
        assertThat(dashboard.path("title").asString()).isEqualTo("NeMo Lens consumer");
        assertThat(dashboard.path("schemaVersion").asInt())
                .as("schemaVersion (Grafana 11)")
                .isGreaterThanOrEqualTo(39);
        assertThat(dashboard.path("id").isNull() || dashboard.path("id").isMissingNode())
                .as("a dashboard to provision or import carries no database id")
                .isTrue();
    }

    @Test
    void theDashboardHasTheDataSourceJobAndInstanceVariables() {
        Map<String, JsonNode> variables = new LinkedHashMap<>();
        for (JsonNode v : dashboard().path("templating").path("list")) {
            variables.put(v.path("name").asString(), v);
        }
        assertThat(variables).containsKeys("datasource", "job", "instance");

        JsonNode datasource = variables.get("datasource");
        assertThat(datasource.path("type").asString()).isEqualTo("datasource");
        assertThat(datasource.path("query").asString()).isEqualTo("prometheus");

        JsonNode job = variables.get("job");
        assertThat(Set.of("textbox", "custom", "constant", "query"))
                .as("job variable type")
                .contains(job.path("type").asString());
        assertThat(job.path("current").path("value").asString())
                .as("the job variable's default is the compose stack's scrape job")
                .isEqualTo(CONSUMER);
        assertThat(scrapeJob(job.path("current").path("value").asString()))
                .as("prometheus.yml has the job the dashboard shows by default")
                .isNotEmpty();

        JsonNode instance = variables.get("instance");
        assertThat(instance.path("type").asString()).isEqualTo("query");
        JsonNode query = instance.path("query");
        assertThat(query.isObject() ? query.path("query").asString() : query.asString())
                .as("the instance variable lists the job's targets")
                .isEqualTo("label_values(up{job=\"$job\"}, instance)");
        assertThat(instance.path("datasource").path("uid").asString()).isEqualTo("${datasource}");
        assertThat(instance.path("multi").asBoolean())
                .as("instance: multi-select")
                .isTrue();
        assertThat(instance.path("includeAll").asBoolean()).as("instance: All").isTrue();
        assertThat(instance.path("allValue").asString())
                .as("instance: All matches every instance (used with =~)")
                .isEqualTo(".*");
    }

    @Test
    void everyPanelHasAUniqueIdAPlaceADescriptionAndTheDataSourceVariable() {
        List<JsonNode> panels = panels();
        assertThat(panels).isNotEmpty();
        Set<Integer> ids = new HashSet<>();
        Set<String> titles = new HashSet<>();
        List<int[]> boxes = new ArrayList<>();
        for (JsonNode p : panels) {
            String title = p.path("title").asString();
            assertThat(ids.add(p.path("id").asInt(-1)))
                    .as("panel '%s': id %s is unique", title, p.path("id"))
                    .isTrue();
            assertThat(p.path("id").asInt(-1)).as("panel '%s': id", title).isPositive();
            assertThat(p.path("datasource").path("uid").asString())
                    .as("panel '%s': data source", title)
                    .isEqualTo("${datasource}");
            JsonNode grid = p.path("gridPos");
            int x = grid.path("x").asInt(-1);
            int y = grid.path("y").asInt(-1);
            int w = grid.path("w").asInt(0);
            int h = grid.path("h").asInt(0);
            assertThat(x >= 0 && y >= 0 && w > 0 && h > 0 && x + w <= 24)
                    .as("panel '%s': gridPos %s within the 24 columns", title, grid)
                    .isTrue();
            for (int[] other : boxes) {
                assertThat(x < other[0] + other[2] && other[0] < x + w && y < other[1] + other[3] && other[1] < y + h)
                        .as("panel '%s' overlaps another panel", title)
                        .isFalse();
            }
            boxes.add(new int[] {x, y, w, h});
            if (p.path("type").asString().equals("row")) {
                continue;
            }
            assertThat(p.path("type").asString()).as("panel '%s': type", title).isIn("timeseries", "stat");
            assertThat(titles.add(title))
                    .as("panel title '%s' is unique (docs/dashboard.md lists panels by title)", title)
                    .isTrue();
            assertThat(p.path("description").asString())
                    .as("panel '%s': description", title)
                    .isNotBlank();
            assertThat(p.path("targets").size())
                    .as("panel '%s': targets", title)
                    .isPositive();
        }
    }

    @Test
    void everyQueryFiltersByJobAndInstanceAndUsesOnlyTheVariablesTheIntegrationTestSubstitutes() {
        for (Query q : queries()) {
            assertThat(q.target().path("datasource").path("uid").asString())
                    .as("%s: target data source", q)
                    .isEqualTo("${datasource}");
            List<String> selectors = new ArrayList<>();
            Matcher m = SELECTOR.matcher(q.expr());
            while (m.find()) {
                selectors.add(m.group());
            }
            assertThat(selectors).as("%s: label selectors", q).isNotEmpty();
            assertThat(selectors)
                    .as("%s: every selector filters by %s and %s", q, JOB_MATCHER, INSTANCE_MATCHER)
                    .allMatch(s -> s.contains(JOB_MATCHER) && s.contains(INSTANCE_MATCHER));
            assertThat(metricNames(q.expr()).size())
                    .as("%s: every metric name has a selector (of the job and the instance)", q)
                    .isEqualTo(selectors.size());
            Set<String> variables = new TreeSet<>();
            Matcher v = VARIABLE.matcher(q.expr());
            while (v.find()) {
                variables.add(v.group());
            }
            assertThat(QUERY_VARIABLES).as("%s: variables", q).containsAll(variables);
            Matcher r = RANGE.matcher(q.expr());
            while (r.find()) {
                assertThat(r.group())
                        .as("%s: rates over Grafana's $__rate_interval", q)
                        .isEqualTo("[$__rate_interval]");
            }
        }
    }

    @Test
    void everyQueryReadsMetersTheServiceExposesOrItsRecordingRules() {
        Set<String> known = new TreeSet<>(KNOWN_METERS);
        known.addAll(recordingRules());
        for (Query q : queries()) {
            assertThat(metricNames(q.expr()))
                    .as("%s: metric names (known: the service's meters and lens-recording.yml's records)", q)
                    .isNotEmpty()
                    .allMatch(known::contains);
        }
    }

    /** The query reader itself: selectors, strings, ranges, grouping labels, functions and keywords are no meters. */
    @Test
    void metricNamesAreReadFromPromQl() {
        assertThat(metricNames("sum by (le, signal) (rate(a_bucket{job=\"$job\", x=\"y z\"}[$__rate_interval]))"
                        + " or on() label_replace(sum(0 * up{job=\"$job\"}), \"result\", \"none\", \"\", \"\")"
                        + " / ignoring(instance) b_total{q=\"1\"} > 0 and c unless time() - 1e3"))
                .containsExactly("a_bucket", "up", "b_total", "c");
    }

    // ---------------------------------------------------------------------------------------------------------
    // the documentation

    @Test
    void theDocumentationStartsTheProfileAndListsEveryPanelWithItsQueries() throws IOException {
        String text = Files.readString(ROOT.resolve("docs/dashboard.md"));
        assertThat(text)
                .as("docs/dashboard.md should give the command that starts the monitoring")
                .contains("docker compose -f " + StackFiles.MINIMAL_COMPOSE + " --profile " + PROFILE + " up -d");
        Map<String, String> rows = panelTable(text);
        for (JsonNode p : panels()) {
            if (p.path("type").asString().equals("row")) {
                continue;
            }
            String title = p.path("title").asString();
            assertThat(rows)
                    .as("docs/dashboard.md: the panel table lists '%s'", title)
                    .containsKey(title);
            for (JsonNode t : p.path("targets")) {
                assertThat(rows.get(title))
                        .as("docs/dashboard.md: the row of '%s' shows its query", title)
                        .contains("`" + t.path("expr").asString() + "`");
            }
        }
        assertThat(rows.keySet())
                .as("docs/dashboard.md: the panel table lists no panel the dashboard lacks")
                .allMatch(title -> panels().stream()
                        .anyMatch(p -> p.path("title").asString().equals(title)));
    }

    /** The table whose header has a {@code panel} column: each row's text by the panel's title. */
    private static Map<String, String> panelTable(String text) {
        Map<String, String> rows = new LinkedHashMap<>();
        int column = -1;
        for (String line : text.split("\n")) {
            if (!line.startsWith("|")) {
                column = -1;
                continue;
            }
            List<String> cells = Stream.of(
                            line.substring(1, line.lastIndexOf('|')).split("\\|"))
                    .map(String::strip)
                    .toList();
            if (column < 0) {
                column = cells.indexOf("panel");
            } else if (!cells.get(column).matches("-+")) {
                rows.put(cells.get(column), line);
            }
        }
        return rows;
    }

    // ---------------------------------------------------------------------------------------------------------
    // helpers

    /** One query of the dashboard, named by its panel. */
    record Query(String panel, JsonNode target, String expr) {

        @Override
        public String toString() {
            return "panel '" + panel + "' target " + target.path("refId").asString();
        }
    }

    private static JsonNode dashboard() {
        return JSON.readTree(ROOT.resolve(DASHBOARD_FILE).toFile());
    }

    /** Every panel, those inside collapsed rows too. */
    private static List<JsonNode> panels() {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode p : dashboard().path("panels")) {
            out.add(p);
            for (JsonNode nested : p.path("panels")) {
                out.add(nested);
            }
        }
        return out;
    }

    private static List<Query> queries() {
        List<Query> out = new ArrayList<>();
        for (JsonNode p : panels()) {
            for (JsonNode t : p.path("targets")) {
                String expr = t.path("expr").asString();
                assertThat(expr)
                        .as("panel '%s': target expr", p.path("title").asString())
                        .isNotBlank();
                out.add(new Query(p.path("title").asString(), t, expr));
            }
        }
        assertThat(out).as("the dashboard's queries").isNotEmpty();
        return out;
    }

    /**
     * The metric names a PromQL expression reads, in order: what is left once selectors, strings, ranges and
     * grouping label lists are gone and function calls and keywords are skipped.
     */
    static List<String> metricNames(String expr) {
        String s = SELECTOR.matcher(expr).replaceAll("{}");
        s = STRING.matcher(s).replaceAll("\"\"");
        s = RANGE.matcher(s).replaceAll("[]");
        s = GROUPING.matcher(s).replaceAll(" ");
        List<String> names = new ArrayList<>();
        Matcher m = IDENTIFIER.matcher(s);
        while (m.find()) {
            if (!KEYWORDS.contains(m.group())) {
                names.add(m.group());
            }
        }
        return names;
    }

    /** The records of lens-recording.yml, once that file exists. */
    private static Set<String> recordingRules() {
        Path file = ROOT.resolve(RULES.get(1));
        Set<String> records = new TreeSet<>();
        if (Files.exists(file)) {
            for (Object group : list(StackFiles.yaml(file).get("groups"), file + ": groups")) {
                for (Object rule : list(map(group, "group").get("rules"), file + ": rules")) {
                    Object record = map(rule, "rule").get("record");
                    if (record != null) {
                        records.add(String.valueOf(record));
                    }
                }
            }
        }
        return records;
    }

    private static Map<String, Object> prometheusConfig() {
        return StackFiles.yaml(ROOT.resolve(PROMETHEUS_CONFIG));
    }

    private static Map<String, Object> scrapeJob(String name) {
        for (Object job : list(prometheusConfig().get("scrape_configs"), "prometheus.yml: scrape_configs")) {
            Map<String, Object> j = map(job, "scrape_configs[]");
            if (name.equals(j.get("job_name"))) {
                return j;
            }
        }
        throw new AssertionError("prometheus.yml: no scrape job '" + name + "'");
    }

    private static List<String> targets(Map<String, Object> job) {
        List<String> out = new ArrayList<>();
        for (Object c : list(job.get("static_configs"), job.get("job_name") + ": static_configs")) {
            list(map(c, "static_configs[]").get("targets"), "targets").forEach(t -> out.add(String.valueOf(t)));
        }
        return out;
    }

    /** Where a service mounts a repository file; fails unless it does so once, read-only, and the file exists. */
    private static String mountedAt(Map<String, Object> service, String source, String file) {
        List<Mount> found = mounts(service, file).stream()
                .filter(m -> m.source().equals(source))
                .toList();
        assertThat(found).as("%s: a service should mount %s once", file, source).hasSize(1);
        assertThat(found.get(0).readOnly())
                .as("%s: %s mounted read-only", file, source)
                .isTrue();
        assertThat(ROOT.resolve(source).normalize())
                .as("%s: mounted file", file)
                .isRegularFile();
        return found.get(0).target();
    }

    /** A {@code --name=value} of a service's command. */
    private static Optional<String> flag(Map<String, Object> service, String name, String file) {
        return list(service.get("command"), file + ": command").stream()
                .map(String::valueOf)
                .filter(a -> a.startsWith(name + "="))
                .map(a -> a.substring(name.length() + 1))
                .findFirst();
    }

    private static int prometheusPort(Map<String, Object> compose, String file) {
        return flag(service(compose, file, PROMETHEUS), "--web.listen-address", file)
                .map(a -> Integer.parseInt(a.substring(a.lastIndexOf(':') + 1)))
                .orElse(PROMETHEUS_DEFAULT_PORT);
    }

    private static Mount prometheusStorage(Map<String, Object> compose, String file) {
        Map<String, Object> prometheus = service(compose, file, PROMETHEUS);
        String path = flag(prometheus, "--storage.tsdb.path", file).orElse("/prometheus");
        return mounts(prometheus, PROMETHEUS).stream()
                .filter(m -> m.target().equals(path))
                .findFirst()
                .orElseThrow(() -> new AssertionError(file + ": prometheus should mount a volume at " + path));
    }

    private static Set<String> dependencies(Map<String, Object> service, String where) {
        Object dependsOn = service.get("depends_on");
        return dependsOn instanceof List<?> l
                ? new LinkedHashSet<>(l.stream().map(String::valueOf).toList())
                : map(dependsOn, where + ".depends_on").keySet();
    }

    private static String firstOf(String... values) {
        for (String v : values) {
            if (v != null) {
                return v;
            }
        }
        throw new AssertionError("no value");
    }
}
