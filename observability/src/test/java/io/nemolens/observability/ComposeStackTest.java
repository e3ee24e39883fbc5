package io.nemolens.observability;

import static io.nemolens.observability.StackFiles.ROOT;
import static io.nemolens.observability.StackFiles.at;
import static io.nemolens.observability.StackFiles.containerPorts;
import static io.nemolens.observability.StackFiles.environment;
import static io.nemolens.observability.StackFiles.list;
import static io.nemolens.observability.StackFiles.map;
import static io.nemolens.observability.StackFiles.mounts;
import static io.nemolens.observability.StackFiles.service;
import static io.nemolens.observability.StackFiles.services;
import static io.nemolens.observability.StackFiles.withDefaults;
import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.generator.GenerateOptions;
import io.nemolens.observability.StackFiles.Mount;
import io.nemolens.topology.LensTopology;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Both compose files, checked without Docker: what they mount exists, images are pinned, host names,
 * ports, credentials and environment names agree with the collector configs, the broker's definitions and
 * configuration, and the consumer's own configuration properties.
 */
class ComposeStackTest {

    static final List<String> COMPOSE_FILES = StackFiles.COMPOSE_FILES;

    /** Properties another module is about to add; a compose file may set them before they exist. */
    private static final Set<String> ANNOUNCED_PROPERTIES = Set.of(
            "lens.archive.path",
            "lens.archive.store.uri",
            "lens.archive.store.endpoint",
            "lens.archive.store.path-style-access");

    private static final String COLLECTOR_CONFIG_TARGET = "/etc/otelcol-contrib/config.yaml";

    private static final Pattern ENV_REFERENCE = Pattern.compile("\\$\\{env:([A-Za-z_][A-Za-z0-9_]*)}");

    private static final JsonMapper JSON = JsonMapper.builder().build();

    private static Map<String, Object> compose(String file) {
        return StackFiles.compose(file);
    }

    /** The collector config a compose file mounts as the collector's config, checked to be the one its command loads. */
    private static String collectorConfig(String file) {
        Map<String, Object> collector = service(compose(file), file, "otel-collector");
        List<Mount> configs = mounts(collector, file + ": otel-collector").stream()
                .filter(m -> m.target().equals(COLLECTOR_CONFIG_TARGET))
                .toList();
        assertThat(configs)
                .as("%s: otel-collector should mount one config at %s", file, COLLECTOR_CONFIG_TARGET)
                .hasSize(1);
        assertThat(list(collector.get("command"), "command"))
                .as("%s: otel-collector command should load %s", file, COLLECTOR_CONFIG_TARGET)
                .contains("--config=" + COLLECTOR_CONFIG_TARGET);
        String source = configs.get(0).source();
        assertThat(source)
                .as("%s: the collector config should come from observability/", file)
                .startsWith("./observability/");
        return Path.of(source).getFileName().toString();
    }

    @ParameterizedTest
    @FieldSource("COMPOSE_FILES")
    void everyMountedFileExistsAndHostPathsAreReadOnly(String file) {
        Map<String, Object> compose = compose(file);
        Set<String> namedVolumes =
                map(compose.get("volumes"), file + ": volumes").keySet();
        List<String> problems = new ArrayList<>();
        services(compose, file).forEach((name, value) -> {
            for (Mount m : mounts(map(value, name), file + ": " + name)) {
                if (m.source().startsWith(".")) {
                    Path onDisk = ROOT.resolve(m.source()).normalize();
                    if (!Files.exists(onDisk)) {
                        problems.add("service " + name + " mounts " + m.source() + ", which does not exist (" + onDisk
                                + ")");
                    }
                    if (!m.readOnly()) {
                        problems.add(
                                "service " + name + " mounts " + m.source() + " writable; mount repository files :ro");
                    }
                } else if (m.isHostPath()) {
                    if (!m.readOnly()) {
                        problems.add(
                                "service " + name + " mounts the host's " + m.source() + " writable; mount it :ro");
                    }
                } else if (!namedVolumes.contains(m.source())) {
                    problems.add("service " + name + " uses volume '" + m.source()
                            + "', which the top-level volumes: does not declare");
                }
            }
            at(map(value, name), "build", "context").ifPresent(context -> {
                Path dir = ROOT.resolve(String.valueOf(context)).normalize();
                String dockerfile = at(map(value, name), "build", "dockerfile")
                        .map(String::valueOf)
                        .orElse("Dockerfile");
                if (!Files.isRegularFile(dir.resolve(dockerfile))) {
                    problems.add(
                            "service " + name + " builds from " + dir.resolve(dockerfile) + ", which does not exist");
                }
            });
        });
        assertThat(problems).as("%s", file).isEmpty();
    }

    @ParameterizedTest
    @FieldSource("COMPOSE_FILES")
    void imagesArePinned(String file) {
        List<String> problems = new ArrayList<>();
        services(compose(file), file).forEach((name, value) -> {
            Object image = map(value, name).get("image");
            if (image == null) {
                problems.add("service " + name + " has no image: (name built images too, with a version tag)");
            } else {
                checkPinned("service " + name, String.valueOf(image), problems);
            }
        });
        assertThat(problems).as("%s", file).isEmpty();
    }

    @Test
    void dockerfileImagesArePinnedAndItRunsAsAnotherUserThanRoot() throws IOException {
        List<String> lines = Files.readAllLines(ROOT.resolve("Dockerfile"));
        List<String> problems = new ArrayList<>();
        lines.stream()
                .filter(l -> l.startsWith("FROM "))
                .forEach(l -> checkPinned("Dockerfile " + l, l.split("\\s+")[1], problems));
        assertThat(problems).isEmpty();
        assertThat(lines)
                .as("Dockerfile: USER")
                .anyMatch(l -> l.startsWith("USER ") && !l.trim().equals("USER root"));
        assertThat(lines).as("Dockerfile: HEALTHCHECK on the actuator").anyMatch(l -> l.contains("/actuator/health"));
        assertThat(ROOT.resolve(".dockerignore")).as(".dockerignore").exists();
    }

    /**
     * An exhausted heap must end the consumer at once, whoever starts it: the image, and whoever copies the
     * README's run command.
     */
    @Test
    void theImageAndTheReadmesRunCommandEndTheConsumerOnOutOfMemory() throws IOException {
        String entrypoint = Files.readAllLines(ROOT.resolve("Dockerfile")).stream()
                .filter(l -> l.startsWith("ENTRYPOINT "))
                .reduce((first, last) -> last)
                .orElseThrow();
        assertThat(entrypoint)
                .as("Dockerfile ENTRYPOINT")
                .contains("\"-XX:+ExitOnOutOfMemoryError\"", "/app/lens-consumer.jar");
        List<String> runCommands = Files.readAllLines(ROOT.resolve("README.md")).stream()
                .filter(l -> l.contains("java ")
                        && l.contains("lens-consumer-app-0.1.0-SNAPSHOT-exec.jar")
                        && !l.contains(" poison "))
                .toList();
        assertThat(runCommands).as("README: commands that run the consumer").isNotEmpty();
        assertThat(runCommands)
                .allMatch(l -> l.contains("java -XX:+ExitOnOutOfMemoryError "), "run with -XX:+ExitOnOutOfMemoryError");
    }

    private static void checkPinned(String where, String image, List<String> problems) {
        String withoutDigest = image.contains("@") ? image.substring(0, image.indexOf('@')) : image;
        int slash = withoutDigest.lastIndexOf('/');
        int colon = withoutDigest.indexOf(':', slash + 1);
        if (colon < 0) {
            problems.add(where + ": image " + image + " has no tag; pin a version");
        } else {
            String tag = withoutDigest.substring(colon + 1);
            if (tag.equals("latest") || !tag.matches(".*\\d.*")) {
                problems.add(where + ": image " + image + " has the floating tag '" + tag + "'; pin a version");
            }
        }
    }

    @ParameterizedTest
    @FieldSource("COMPOSE_FILES")
    void dependenciesNameServicesOfTheFile(String file) {
        Map<String, Object> services = services(compose(file), file);
        services.forEach((name, value) -> {
            Object dependsOn = map(value, name).get("depends_on");
            Set<String> targets = dependsOn instanceof List<?> l
                    ? new LinkedHashSet<>(l.stream().map(String::valueOf).toList())
                    : map(dependsOn, name + ".depends_on").keySet();
            assertThat(services.keySet())
                    .as("%s: %s depends on services that do not exist", file, name)
                    .containsAll(targets);
        });
    }

    @ParameterizedTest
    @FieldSource("COMPOSE_FILES")
    void brokerMountsTheObservabilityFilesWhereRabbitmqConfReadsThem(String file) throws IOException {
        Map<String, Object> rabbitmq = service(compose(file), file, "rabbitmq");
        Map<String, String> mounted = new java.util.HashMap<>();
        mounts(rabbitmq, file + ": rabbitmq").forEach(m -> mounted.put(m.target(), m.source()));
        assertThat(mounted)
                .as("%s: rabbitmq mounts", file)
                .containsEntry("/etc/rabbitmq/rabbitmq.conf", "./observability/rabbitmq/rabbitmq.conf")
                .containsEntry("/etc/rabbitmq/enabled_plugins", "./observability/rabbitmq/enabled_plugins");
        String definitionsPath = StackFiles.rabbitmqConf().get("definitions.local.path");
        assertThat(mounted)
                .as(
                        "%s: rabbitmq.conf loads definitions from %s; the compose file must mount definitions.json there",
                        file, definitionsPath)
                .containsEntry(definitionsPath, "./observability/rabbitmq/definitions.json");
        assertThat(containerPorts(rabbitmq, "rabbitmq"))
                .as("%s: rabbitmq ports", file)
                .contains(
                        Integer.parseInt(StackFiles.rabbitmqConf().get("listeners.tcp.default")),
                        Integer.parseInt(StackFiles.rabbitmqConf().get("management.tcp.port")));
        assertThat(String.valueOf(rabbitmq.get("image")))
                .as("%s: the broker image should have the management UI", file)
                .contains("management");
    }

    @ParameterizedTest
    @FieldSource("COMPOSE_FILES")
    void collectorReachesTheBrokerByServiceNameWithTheDefinitionsUser(String file) throws Exception {
        Map<String, Object> compose = compose(file);
        String configName = collectorConfig(file);
        Map<String, Object> config = StackFiles.collector(configName);
        URI endpoint = URI.create(at(config, "exporters", "rabbitmq", "connection", "endpoint")
                .map(String::valueOf)
                .orElseThrow());
        assertThat(services(compose, file))
                .as(
                        "%s: %s publishes to host '%s', which is no service of %s",
                        configName, configName, endpoint.getHost(), file)
                .containsKey(endpoint.getHost());
        assertThat(endpoint.getPort())
                .as("%s: exporter port vs rabbitmq.conf listeners.tcp.default", configName)
                .isEqualTo(Integer.parseInt(StackFiles.rabbitmqConf().get("listeners.tcp.default")));
        assertThat(containerPorts(service(compose, file, endpoint.getHost()), endpoint.getHost()))
                .as("%s: service %s should publish or expose the port the exporter uses", file, endpoint.getHost())
                .contains(endpoint.getPort());

        Map<String, String> env = environment(service(compose, file, "otel-collector"), "otel-collector");
        String text = Files.readString(StackFiles.OBSERVABILITY.resolve(configName));
        Matcher refs = ENV_REFERENCE.matcher(text);
        while (refs.find()) {
            assertThat(env)
                    .as("%s uses ${env:%s}, which %s does not set for otel-collector", configName, refs.group(1), file)
                    .containsKey(refs.group(1));
        }
        String user = resolve(
                String.valueOf(at(config, "exporters", "rabbitmq", "connection", "auth", "plain", "username")
                        .orElseThrow()),
                env);
        String password = resolve(
                String.valueOf(at(config, "exporters", "rabbitmq", "connection", "auth", "plain", "password")
                        .orElseThrow()),
                env);
        assertDefinitionsUser(file + " otel-collector", user, password);
    }

    /** The value of a collector {@code ${env:X}} reference with the compose file's defaults. */
    private static String resolve(String value, Map<String, String> env) {
        Matcher m = ENV_REFERENCE.matcher(value);
        return m.matches() ? withDefaults(env.get(m.group(1))) : value;
    }

    private static void assertDefinitionsUser(String who, String user, String password) throws Exception {
        JsonNode definitions = JSON.readTree(
                StackFiles.OBSERVABILITY.resolve("rabbitmq/definitions.json").toFile());
        JsonNode match = null;
        for (JsonNode u : definitions.get("users")) {
            if (u.get("name").asString().equals(user)) {
                match = u;
            }
        }
        assertThat(match)
                .as("%s logs in as '%s', who is no user in definitions.json", who, user)
                .isNotNull();
        byte[] hash = Base64.getDecoder().decode(match.get("password_hash").asString());
        MessageDigest sha256 = MessageDigest.getInstance("SHA-256");
        sha256.update(hash, 0, 4);
        byte[] expected = sha256.digest(password.getBytes(StandardCharsets.UTF_8));
        assertThat(Arrays.copyOfRange(hash, 4, hash.length))
                .as(
                        "%s: the default password of user '%s' does not match its password_hash in definitions.json",
                        who, user)
                .isEqualTo(expected);
    }

    @ParameterizedTest
    @FieldSource("COMPOSE_FILES")
    void consumerEnvironmentNamesRealPropertiesAndAgreesWithTheStack(String file) throws Exception {
        Map<String, Object> compose = compose(file);
        Map<String, Object> consumer = service(compose, file, "lens-consumer");
        Map<String, String> env = environment(consumer, "lens-consumer");
        Set<String> known = knownPropertiesAsEnvironmentNames();
        for (String name : env.keySet()) {
            assertThat(known)
                    .as("%s: lens-consumer sets %s, which is no configuration property of the consumer", file, name)
                    .contains(name);
        }
        assertThat(env)
                .as("%s: lens-consumer environment", file)
                .containsKeys(
                        "SPRING_RABBITMQ_HOST",
                        "SPRING_RABBITMQ_PORT",
                        "SPRING_RABBITMQ_USERNAME",
                        "SPRING_RABBITMQ_PASSWORD",
                        "LENS_TOPOLOGY_EXCHANGE",
                        "LENS_ARCHIVE_PATH");
        String host = env.get("SPRING_RABBITMQ_HOST");
        assertThat(services(compose, file))
                .as("%s: SPRING_RABBITMQ_HOST=%s is no service", file, host)
                .containsKey(host);
        assertThat(Integer.parseInt(env.get("SPRING_RABBITMQ_PORT")))
                .as("%s: SPRING_RABBITMQ_PORT vs rabbitmq.conf", file)
                .isEqualTo(Integer.parseInt(StackFiles.rabbitmqConf().get("listeners.tcp.default")));
        assertThat(env.get("LENS_TOPOLOGY_EXCHANGE"))
                .as("%s: LENS_TOPOLOGY_EXCHANGE", file)
                .isEqualTo(LensTopology.DEFAULT_EXCHANGE);
        assertDefinitionsUser(
                file + " lens-consumer",
                withDefaults(env.get("SPRING_RABBITMQ_USERNAME")),
                withDefaults(env.get("SPRING_RABBITMQ_PASSWORD")));
        String collectorUser = environment(service(compose, file, "otel-collector"), "otel-collector")
                .get("RABBITMQ_USER");
        assertThat(env.get("SPRING_RABBITMQ_USERNAME"))
                .as("%s: consumer and collector should take the user from the same variable", file)
                .isEqualTo(collectorUser);

        String archive = env.get("LENS_ARCHIVE_PATH");
        assertThat(mounts(consumer, "lens-consumer"))
                .as("%s: LENS_ARCHIVE_PATH=%s should be a volume of lens-consumer", file, archive)
                .anyMatch(m -> m.target().equals(archive) && !m.isHostPath());
    }

    @ParameterizedTest
    @FieldSource("COMPOSE_FILES")
    void consumerHealthCheckAsksTheActuatorOnTheServerPort(String file) {
        Map<String, Object> consumer = service(compose(file), file, "lens-consumer");
        String port = environment(consumer, "lens-consumer").getOrDefault("SERVER_PORT", "8080");
        List<String> test =
                list(at(consumer, "healthcheck", "test").orElse(null), file + ": lens-consumer.healthcheck.test")
                        .stream()
                        .map(String::valueOf)
                        .toList();
        assertThat(test).as("%s: lens-consumer health check", file).isNotEmpty();
        assertThat(test.get(0)).isIn("CMD", "CMD-SHELL");
        assertThat(test)
                .as("%s: the health check should use curl, which the Dockerfile installs", file)
                .contains("curl");
        assertThat(String.join(" ", test))
                .as("%s: lens-consumer health check should GET an actuator health path on port %s", file, port)
                .containsPattern("http://localhost:" + port + "/actuator/health(/liveness|/readiness)?\\b");
        assertThat(containerPorts(consumer, "lens-consumer"))
                .as("%s: lens-consumer should publish its server port", file)
                .contains(Integer.parseInt(port));
    }

    @ParameterizedTest
    @FieldSource("COMPOSE_FILES")
    void generatorRunsTheGeneratorJarAgainstTheCollector(String file) throws Exception {
        Map<String, Object> compose = compose(file);
        Map<String, Object> generator = service(compose, file, "telemetry-generator");
        List<String> command = list(generator.get("command"), "telemetry-generator.command").stream()
                .map(String::valueOf)
                .toList();
        List<String> entrypoint = list(generator.get("entrypoint"), "telemetry-generator.entrypoint").stream()
                .map(String::valueOf)
                .toList();
        assertThat(generator.get("image"))
                .as("%s: the generator runs the consumer's image", file)
                .isEqualTo(service(compose, file, "lens-consumer").get("image"));
        String jar = entrypoint.get(entrypoint.size() - 1);
        assertThat(entrypoint).as("%s: telemetry-generator entrypoint", file).containsSubsequence("java", "-jar");
        assertThat(Files.readString(ROOT.resolve("Dockerfile")))
                .as("%s: the image should hold the generator's jar %s", file, jar)
                .contains("COPY --from=build /src/lens-generator.jar " + jar);
        GenerateOptions options = GenerateOptions.parse(command, "run");
        assertThat(options.target()).isEqualTo(GenerateOptions.Target.OTLP_HTTP);
        URI endpoint = options.otlpEndpoint();
        assertThat(services(compose, file))
                .as("%s: the generator sends to '%s', which is no service", file, endpoint.getHost())
                .containsKey(endpoint.getHost());
        Map<String, Object> config = StackFiles.collector(collectorConfig(file));
        String http = at(config, "receivers", "otlp", "protocols", "http", "endpoint")
                .map(String::valueOf)
                .orElseThrow();
        assertThat(endpoint.getPort())
                .as("%s: generator port vs the collector's OTLP HTTP receiver %s", file, http)
                .isEqualTo(Integer.parseInt(http.substring(http.lastIndexOf(':') + 1)));
        assertThat(containerPorts(service(compose, file, endpoint.getHost()), endpoint.getHost()))
                .contains(endpoint.getPort());
    }

    @Test
    void fullStackScrapesTheSidecarsWhereComposeRunsThem() {
        String file = StackFiles.FULL_COMPOSE;
        Map<String, Object> compose = compose(file);
        String configName = collectorConfig(file);
        assertThat(configName).isEqualTo("otel-collector-rabbitmq-infra.yaml");
        Map<String, List<String>> jobs =
                CollectorConfigTest.scrapeTargets(StackFiles.collector(configName), configName);
        Map<String, Object> collector = service(compose, file, "otel-collector");

        URI dcgm = URI.create("http://" + jobs.get("dcgm-exporter").get(0));
        Map<String, Object> dcgmService = service(compose, file, dcgm.getHost());
        assertThat(containerPorts(dcgmService, dcgm.getHost()))
                .as("%s: %s should listen on the scraped port %s", file, dcgm.getHost(), dcgm.getPort())
                .contains(dcgm.getPort());
        assertThat(dcgmService.get("runtime"))
                .as("%s: dcgm-exporter needs the NVIDIA runtime", file)
                .isEqualTo("nvidia");

        URI node = URI.create("http://" + jobs.get("node-exporter").get(0));
        Map<String, Object> nodeService = service(compose, file, "node-exporter");
        assertThat(nodeService.get("network_mode"))
                .as("%s: node-exporter sees the host's network only in its namespace", file)
                .isEqualTo("host");
        assertThat(nodeService.get("pid"))
                .as("%s: node-exporter pid namespace", file)
                .isEqualTo("host");
        assertThat(node.getHost())
                .as("%s: with network_mode host, node-exporter is reached through the host", configName)
                .isEqualTo("host.docker.internal");
        assertThat(list(collector.get("extra_hosts"), "extra_hosts"))
                .as("%s: otel-collector must map host.docker.internal to the host", file)
                .contains("host.docker.internal:host-gateway");
        assertThat(list(nodeService.get("command"), "command"))
                .as("%s: node-exporter should listen on the scraped port", file)
                .contains("--web.listen-address=:" + node.getPort());
        assertThat(mounts(nodeService, "node-exporter"))
                .as("%s: node-exporter mounts", file)
                .contains(new Mount("/proc", "/host/proc", true), new Mount("/sys", "/host/sys", true));

        String rootPath = at(StackFiles.collector(configName), "receivers", "hostmetrics", "root_path")
                .map(String::valueOf)
                .orElseThrow();
        assertThat(mounts(collector, "otel-collector"))
                .as("%s: hostmetrics root_path %s should be the host's / read-only", file, rootPath)
                .contains(new Mount("/", rootPath, true));
    }

    @Test
    void minimalStackHasNoGpuSidecars() {
        String file = StackFiles.MINIMAL_COMPOSE;
        Map<String, Object> compose = compose(file);
        assertThat(ComposeObjectStoreTest.servicesWithoutProfile(compose, file))
                .as("%s services (without a profile)", file)
                .containsExactlyInAnyOrder("rabbitmq", "otel-collector", "lens-consumer", "telemetry-generator");
        services(compose, file).forEach((name, value) -> {
            assertThat(map(value, name).get("runtime"))
                    .as("%s: %s should not need the NVIDIA runtime", file, name)
                    .isNull();
            assertThat(map(value, name).get("network_mode"))
                    .as("%s: %s network_mode", file, name)
                    .isNull();
        });
        assertThat(collectorConfig(file)).isEqualTo("otel-collector-rabbitmq.yaml");
    }

    @Test
    void bothStacksShareTheirCommonServices() {
        Map<String, Object> full = services(compose(StackFiles.FULL_COMPOSE), StackFiles.FULL_COMPOSE);
        Map<String, Object> minimal = services(compose(StackFiles.MINIMAL_COMPOSE), StackFiles.MINIMAL_COMPOSE);
        for (String name : List.of("rabbitmq", "lens-consumer", "object-store", "object-store-init")) {
            assertThat(full.get(name))
                    .as("service %s should be the same in both compose files", name)
                    .isEqualTo(minimal.get(name));
        }
        for (String key : List.of("image", "command", "environment", "ports", "depends_on")) {
            assertThat(map(full.get("otel-collector"), "otel-collector").get(key))
                    .as("otel-collector.%s should be the same in both", key)
                    .isEqualTo(
                            map(minimal.get("otel-collector"), "otel-collector").get(key));
        }
    }

    /**
     * Every property in the configuration metadata on the class path (Spring Boot's and the consumer's), as
     * environment names: Spring Boot's canonical form (dots to underscores, dashes removed, upper case) and the
     * form with dashes as underscores, which its binder maps to the same property ({@code
     * LENS_ARCHIVE_STORE_PATH_STYLE_ACCESS} and {@code LENS_ARCHIVE_STORE_PATHSTYLEACCESS} both set {@code
     * lens.archive.store.path-style-access}).
     */
    static Set<String> knownPropertiesAsEnvironmentNames() throws IOException {
        Set<String> names = new LinkedHashSet<>();
        for (String resource : List.of(
                "META-INF/spring-configuration-metadata.json",
                "META-INF/additional-spring-configuration-metadata.json")) {
            Enumeration<URL> urls = ComposeStackTest.class.getClassLoader().getResources(resource);
            while (urls.hasMoreElements()) {
                try (InputStream in = urls.nextElement().openStream()) {
                    JsonNode properties = JSON.readTree(in).get("properties");
                    if (properties != null) {
                        properties.forEach(p -> names.add(p.get("name").asString()));
                    }
                }
            }
        }
        assertThat(names)
                .as("configuration metadata of the consumer on the class path")
                .contains("lens.topology.exchange", "spring.rabbitmq.host");
        names.addAll(ANNOUNCED_PROPERTIES);
        Set<String> env = new LinkedHashSet<>();
        names.forEach(n -> {
            env.add(n.replace(".", "_").replace("-", "").toUpperCase(Locale.ROOT));
            env.add(n.replace(".", "_").replace("-", "_").toUpperCase(Locale.ROOT));
        });
        return env;
    }
}
