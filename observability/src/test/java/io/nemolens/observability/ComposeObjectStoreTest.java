package io.nemolens.observability;

import static io.nemolens.observability.StackFiles.ROOT;
import static io.nemolens.observability.StackFiles.at;
import static io.nemolens.observability.StackFiles.containerPorts;
import static io.nemolens.observability.StackFiles.environment;
import static io.nemolens.observability.StackFiles.interpolated;
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
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The optional object store, checked without Docker: in both compose files MinIO and its one-shot set-up exist
 * only under the profile {@code object-store} (without it the stacks are what they were), are pinned and
 * health-checked like the rest, and {@code docker-compose.object-store.yml} points the consumer at them
 * consistently: the endpoint is the store's service and API port, the bucket the one the set-up makes, the
 * credentials those of the user it makes, whose policy (the one {@code docs/object-storage.md} shows) grants
 * exactly the consumer's operations on the consumer's bucket and prefix.
 */
class ComposeObjectStoreTest {

    static final List<String> COMPOSE_FILES = StackFiles.COMPOSE_FILES;

    static final String PROFILE = "object-store";

    private static final String STORE = "object-store";

    private static final String INIT = "object-store-init";

    private static final String CONSUMER = "lens-consumer";

    /** What the AWS SDK's default chains read from the environment (credentials, region); Spring never sees them. */
    private static final Set<String> AWS_SDK_ENVIRONMENT =
            Set.of("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION");

    /** What the consumer does in the bucket, by resource: its objects, and the bucket itself. */
    private static final Set<String> OBJECT_ACTIONS = Set.of("s3:PutObject", "s3:GetObject", "s3:AbortMultipartUpload");

    private static final Set<String> BUCKET_ACTIONS = Set.of("s3:ListBucket", "s3:ListBucketMultipartUploads");

    private static final Pattern GO_DURATION = Pattern.compile("(\\d+)([hms])");

    private static final JsonMapper JSON = JsonMapper.builder().build();

    static List<String> profiles(Map<String, Object> service, String where) {
        return list(service.get("profiles"), where + ".profiles").stream()
                .map(String::valueOf)
                .toList();
    }

    /** The services {@code docker compose up} starts without {@code --profile}. */
    static Set<String> servicesWithoutProfile(Map<String, Object> compose, String file) {
        Set<String> names = new LinkedHashSet<>();
        services(compose, file).forEach((name, value) -> {
            if (profiles(map(value, name), file + ": " + name).isEmpty()) {
                names.add(name);
            }
        });
        return names;
    }

    private static Set<String> dependencies(Map<String, Object> service, String where) {
        Object dependsOn = service.get("depends_on");
        return dependsOn instanceof List<?> l
                ? new LinkedHashSet<>(l.stream().map(String::valueOf).toList())
                : map(dependsOn, where + ".depends_on").keySet();
    }

    private static List<String> strings(Object value, String where) {
        return list(value, where).stream().map(String::valueOf).toList();
    }

    /** The S3 API port, from {@code --address :PORT} of the store's command. */
    private static int apiPort(Map<String, Object> store, String file) {
        List<String> command = strings(store.get("command"), file + ": object-store.command");
        int i = command.indexOf("--address");
        assertThat(i)
                .as("%s: object-store should say its S3 API address (--address :PORT)", file)
                .isNotNegative();
        String address = command.get(i + 1);
        return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
    }

    /** The set-up's shell script, one command per line, as the container gets it. */
    private static List<List<String>> initScript(Map<String, Object> init, String file) {
        assertThat(strings(init.get("entrypoint"), file + ": object-store-init.entrypoint"))
                .as("%s: object-store-init runs its command as a shell script", file)
                .containsExactly("/bin/sh", "-c");
        List<String> command = strings(init.get("command"), file + ": object-store-init.command");
        assertThat(command)
                .as("%s: object-store-init.command is one script", file)
                .hasSize(1);
        Map<String, String> env = environment(init, "object-store-init");
        List<List<String>> lines = new ArrayList<>();
        for (String line : interpolated(command.get(0)).split("\n")) {
            if (!line.isBlank()) {
                List<String> words = new ArrayList<>();
                for (String word : line.strip().split("\\s+")) {
                    String unquoted = word.replaceAll("^\"|\"$", "");
                    // a "$NAME" of the script is the container's environment, as compose set it
                    words.add(
                            unquoted.matches("\\$[A-Za-z_][A-Za-z0-9_]*")
                                    ? "$" + env.getOrDefault(unquoted.substring(1), "<unset " + unquoted + ">")
                                    : unquoted);
                }
                lines.add(words);
            }
        }
        assertThat(lines.get(0))
                .as("%s: the set-up script should stop at the first failing command", file)
                .containsExactly("set", "-e");
        return lines;
    }

    /** The script's one line that starts with these words. */
    private static List<String> line(List<List<String>> script, String file, String... start) {
        List<List<String>> found = script.stream()
                .filter(l ->
                        l.size() >= start.length && l.subList(0, start.length).equals(Arrays.asList(start)))
                .toList();
        assertThat(found)
                .as("%s: object-store-init should run '%s' once", file, String.join(" ", start))
                .hasSize(1);
        return found.get(0);
    }

    /** What the set-up makes: where it connects, the bucket, the user and the policy file it attaches. */
    private record Setup(
            URI endpoint,
            String rootUser,
            String rootPassword,
            String bucket,
            String user,
            String secret,
            Path policy) {}

    private static Setup setup(String file) {
        Map<String, Object> compose = StackFiles.compose(file);
        Map<String, Object> init = service(compose, file, INIT);
        List<List<String>> script = initScript(init, file);
        List<String> aliasSet = line(script, file, "mc", "alias", "set");
        assertThat(aliasSet)
                .as("%s: mc alias set ALIAS URL USER PASSWORD", file)
                .hasSize(7);
        String alias = aliasSet.get(3);

        List<String> mb = line(script, file, "mc", "mb");
        assertThat(mb)
                .as("%s: the bucket is made only when missing (the set-up runs at every up)", file)
                .contains("--ignore-existing");
        String target = mb.get(mb.size() - 1);
        assertThat(target)
                .as("%s: mc mb makes a bucket of alias %s", file, alias)
                .startsWith(alias + "/");

        List<String> create = line(script, file, "mc", "admin", "policy", "create");
        assertThat(create)
                .as("%s: mc admin policy create ALIAS NAME FILE", file)
                .hasSize(7);
        String policyName = create.get(5);
        String policyTarget = create.get(6);
        List<Mount> policyMounts = mounts(init, file + ": object-store-init").stream()
                .filter(m -> m.target().equals(policyTarget))
                .toList();
        assertThat(policyMounts)
                .as("%s: the policy file %s should be mounted from the repository", file, policyTarget)
                .hasSize(1);

        List<String> userAdd = line(script, file, "mc", "admin", "user", "add");
        assertThat(userAdd)
                .as("%s: mc admin user add ALIAS ACCESS_KEY SECRET_KEY", file)
                .hasSize(7);
        List<String> attach = line(script, file, "mc", "admin", "policy", "attach");
        assertThat(attach)
                .as("%s: the policy goes to the user the set-up adds", file)
                .containsExactly("mc", "admin", "policy", "attach", alias, policyName, "--user", userAdd.get(5));
        for (List<String> l : List.of(create, userAdd)) {
            assertThat(l).as("%s: every mc command uses alias %s", file, alias).contains(alias);
        }
        return new Setup(
                URI.create(aliasSet.get(4)),
                aliasSet.get(5),
                aliasSet.get(6),
                target.substring(alias.length() + 1),
                userAdd.get(5),
                userAdd.get(6),
                ROOT.resolve(policyMounts.get(0).source()).normalize());
    }

    @ParameterizedTest
    @FieldSource("COMPOSE_FILES")
    void theObjectStoreExistsOnlyInItsProfileAndChangesNothingWithoutIt(String file) {
        Map<String, Object> compose = StackFiles.compose(file);
        Map<String, Set<String>> profiled = new LinkedHashMap<>();
        services(compose, file).forEach((name, value) -> {
            List<String> p = profiles(map(value, name), file + ": " + name);
            // other profiles (monitoring, MonitoringStackTest) are no business of this one
            if (p.contains(PROFILE) || name.equals(STORE) || name.equals(INIT)) {
                profiled.put(name, new TreeSet<>(p));
            }
        });
        assertThat(profiled)
                .as("%s: services with a profile", file)
                .isEqualTo(Map.of(STORE, Set.of(PROFILE), INIT, Set.of(PROFILE)));
        Set<String> always = servicesWithoutProfile(compose, file);
        for (String name : always) {
            assertThat(dependencies(service(compose, file, name), file + ": " + name))
                    .as("%s: %s runs without the profile, so it cannot depend on the profile's services", file, name)
                    .doesNotContainAnyElementsOf(profiled.keySet());
            assertThat(environment(service(compose, file, name), name).keySet())
                    .as(
                            "%s: without the profile the consumer archives where it did; its store settings live in %s",
                            file, StackFiles.OBJECT_STORE_OVERRIDE)
                    .noneMatch(k -> k.startsWith("LENS_ARCHIVE_STORE_") || AWS_SDK_ENVIRONMENT.contains(k));
        }
        Set<String> volumesOfAlways = new LinkedHashSet<>();
        always.forEach(
                name -> mounts(service(compose, file, name), name).forEach(m -> volumesOfAlways.add(m.source())));
        assertThat(volumesOfAlways)
                .as("%s: the object store's volume is its own", file)
                .doesNotContain("object-store-data");
        assertThat(mounts(service(compose, file, STORE), STORE))
                .as("%s: object-store keeps its data on a named volume", file)
                .contains(new Mount("object-store-data", "/data", false));
        assertThat(strings(service(compose, file, STORE).get("command"), "command"))
                .as("%s: MinIO serves the folder on that volume", file)
                .startsWith("server", "/data");
    }

    @ParameterizedTest
    @FieldSource("COMPOSE_FILES")
    void theObjectStoreIsHealthCheckedLikeTheBrokerAndTheConsumer(String file) {
        Map<String, Object> compose = StackFiles.compose(file);
        Map<String, Object> store = service(compose, file, STORE);
        int port = apiPort(store, file);
        assertThat(containerPorts(store, STORE))
                .as("%s: object-store should publish its S3 API port", file)
                .contains(port);
        Map<String, Object> healthcheck = map(store.get("healthcheck"), file + ": object-store.healthcheck");
        assertThat(healthcheck.keySet())
                .as("%s: object-store's health check has the same settings as the broker's and the consumer's", file)
                .containsExactlyInAnyOrderElementsOf(
                        map(service(compose, file, "rabbitmq").get("healthcheck"), "rabbitmq.healthcheck")
                                .keySet())
                .containsExactlyInAnyOrderElementsOf(
                        map(service(compose, file, CONSUMER).get("healthcheck"), "lens-consumer.healthcheck")
                                .keySet());
        List<String> test = strings(healthcheck.get("test"), file + ": object-store.healthcheck.test");
        assertThat(test).as("%s: object-store health check", file).startsWith("CMD", "curl");
        assertThat(String.join(" ", test))
                .as("%s: the health check should GET MinIO's readiness (or liveness) on port %s", file, port)
                .containsPattern("http://localhost:" + port + "/minio/health/(ready|live)\\b");
        assertThat(store.get("restart")).as("%s: object-store restart", file).isEqualTo("unless-stopped");
    }

    @ParameterizedTest
    @FieldSource("COMPOSE_FILES")
    void theSetUpRunsOnceTheStoreIsHealthyAsItsRoot(String file) {
        Map<String, Object> compose = StackFiles.compose(file);
        Map<String, Object> init = service(compose, file, INIT);
        assertThat(at(init, "depends_on", STORE, "condition"))
                .as("%s: object-store-init waits for the store's health check", file)
                .contains("service_healthy");
        assertThat(String.valueOf(init.getOrDefault("restart", "no")))
                .as("%s: object-store-init is one-shot", file)
                .isEqualTo("no");
        assertThat(init)
                .as("%s: a one-shot has no health check; dependents wait for it to end", file)
                .doesNotContainKey("healthcheck");

        Setup setup = setup(file);
        Map<String, Object> store = service(compose, file, STORE);
        assertThat(setup.endpoint())
                .as("%s: object-store-init talks to the store by its service name and API port", file)
                .isEqualTo(URI.create("http://" + STORE + ":" + apiPort(store, file)));
        Map<String, String> storeEnv = environment(store, STORE);
        assertThat(setup.rootUser()).isEqualTo("$" + storeEnv.get("MINIO_ROOT_USER"));
        assertThat(setup.rootPassword()).isEqualTo("$" + storeEnv.get("MINIO_ROOT_PASSWORD"));
        assertThat(setup.bucket()).as("%s: the bucket", file).isEqualTo("nemo-lens");
        assertThat(setup.user())
                .as("%s: the consumer gets a user of its own, not the store's root", file)
                .isNotEqualTo(setup.rootUser());
        // MinIO refuses access keys under 3 and secret keys under 8 characters
        assertThat(interpolated(setup.user().substring(1))).hasSizeGreaterThanOrEqualTo(3);
        assertThat(interpolated(setup.secret().substring(1))).hasSizeGreaterThanOrEqualTo(8);
        assertThat(interpolated(storeEnv.get("MINIO_ROOT_PASSWORD"))).hasSizeGreaterThanOrEqualTo(8);
    }

    /**
     * MinIO ignores {@code AbortIncompleteMultipartUpload} in a bucket's lifecycle (it drops the element), so the
     * compose files set its own clean-up of incomplete multipart uploads instead: within a day, as the lifecycle
     * rule of docs/object-storage.md does on S3.
     */
    @ParameterizedTest
    @FieldSource("COMPOSE_FILES")
    void incompleteMultipartUploadsGoWithinADay(String file) {
        Map<String, String> env = environment(service(StackFiles.compose(file), file, STORE), STORE);
        Duration expiry = goDuration(env.get("MINIO_API_STALE_UPLOADS_EXPIRY"), file);
        Duration interval = goDuration(env.get("MINIO_API_STALE_UPLOADS_CLEANUP_INTERVAL"), file);
        assertThat(expiry).as("%s: MINIO_API_STALE_UPLOADS_EXPIRY", file).isLessThanOrEqualTo(Duration.ofDays(1));
        assertThat(interval)
                .as("%s: MINIO_API_STALE_UPLOADS_CLEANUP_INTERVAL", file)
                .isPositive()
                .isLessThanOrEqualTo(expiry);
    }

    private static Duration goDuration(String value, String file) {
        assertThat(value).as("%s: a duration such as 24h", file).isNotNull().matches("(\\d+[hms])+");
        Duration d = Duration.ZERO;
        Matcher m = GO_DURATION.matcher(value);
        while (m.find()) {
            long n = Long.parseLong(m.group(1));
            d = d.plus(
                    switch (m.group(2)) {
                        case "h" -> Duration.ofHours(n);
                        case "m" -> Duration.ofMinutes(n);
                        default -> Duration.ofSeconds(n);
                    });
        }
        return d;
    }

    @Test
    void theOverrideOnlyAddsTheStoreSettingsToTheConsumer() {
        String file = StackFiles.OBJECT_STORE_OVERRIDE;
        Map<String, Object> override = StackFiles.compose(file);
        assertThat(override.keySet()).as("%s: top-level keys", file).containsExactly("services");
        assertThat(services(override, file).keySet()).as("%s: services", file).containsExactly(CONSUMER);
        Map<String, Object> consumer = service(override, file, CONSUMER);
        assertThat(consumer.keySet())
                .as("%s: it adds environment and a dependency, nothing else", file)
                .containsExactlyInAnyOrder("environment", "depends_on");
        assertThat(consumer.get("environment"))
                .as("%s: environment as a mapping (merged key by key)", file)
                .isInstanceOf(Map.class);
        assertThat(at(consumer, "depends_on", INIT, "condition"))
                .as("%s: the consumer starts once the bucket and its user exist", file)
                .contains("service_completed_successfully");
        assertThat(map(consumer.get("depends_on"), "depends_on")).hasSize(1);
        for (String base : COMPOSE_FILES) {
            Map<String, Object> compose = StackFiles.compose(base);
            assertThat(profiles(service(compose, base, INIT), INIT))
                    .as(
                            "%s: %s is in the profile, so compose refuses %s without --profile %s",
                            base, INIT, file, PROFILE)
                    .containsExactly(PROFILE);
            assertThat(environment(service(compose, base, CONSUMER), CONSUMER).keySet())
                    .as("%s: %s adds settings, it changes none of %s", file, file, base)
                    .doesNotContainAnyElementsOf(environment(consumer, CONSUMER).keySet());
        }
    }

    @ParameterizedTest
    @FieldSource("COMPOSE_FILES")
    void theConsumerPointedAtTheObjectStoreAgreesWithIt(String file) throws Exception {
        Map<String, Object> merged = StackFiles.merged(file, StackFiles.OBJECT_STORE_OVERRIDE);
        String where = file + " + " + StackFiles.OBJECT_STORE_OVERRIDE;
        Map<String, Object> consumer = service(merged, where, CONSUMER);
        Map<String, String> env = environment(consumer, CONSUMER);

        Set<String> known = ComposeStackTest.knownPropertiesAsEnvironmentNames();
        for (String name : env.keySet()) {
            assertThat(known.contains(name) || AWS_SDK_ENVIRONMENT.contains(name))
                    .as(
                            "%s: lens-consumer sets %s, which is no configuration property and nothing the AWS SDK reads",
                            where, name)
                    .isTrue();
        }
        assertThat(env)
                .as("%s: lens-consumer still archives through its spool on its volume", where)
                .containsKey("LENS_ARCHIVE_PATH");

        Setup setup = setup(file);
        URI endpoint = URI.create(env.get("LENS_ARCHIVE_STORE_ENDPOINT"));
        assertThat(endpoint)
                .as("%s: LENS_ARCHIVE_STORE_ENDPOINT is the store the set-up prepared", where)
                .isEqualTo(setup.endpoint());
        assertThat(env.get("LENS_ARCHIVE_STORE_PATH_STYLE_ACCESS"))
                .as("%s: a store reached by a service name needs path-style requests (no bucket.host names)", where)
                .isEqualTo("true");

        URI uri = URI.create(env.get("LENS_ARCHIVE_STORE_URI"));
        assertThat(uri.getScheme())
                .as("%s: LENS_ARCHIVE_STORE_URI scheme", where)
                .isEqualTo("s3");
        assertThat(uri.getHost())
                .as("%s: LENS_ARCHIVE_STORE_URI names the bucket object-store-init makes", where)
                .isEqualTo(setup.bucket());
        String prefix = uri.getPath().replaceAll("^/+|/+$", "");
        assertThat(prefix)
                .as("%s: the archive has a prefix of its own in the bucket", where)
                .isNotEmpty();

        Map<String, String> initEnv = environment(service(merged, where, INIT), INIT);
        assertThat("$" + env.get("AWS_ACCESS_KEY_ID"))
                .as("%s: the consumer logs in as the user object-store-init adds (same variable, same default)", where)
                .isEqualTo(setup.user());
        assertThat("$" + env.get("AWS_SECRET_ACCESS_KEY"))
                .as("%s: the consumer's secret key is the one object-store-init sets", where)
                .isEqualTo(setup.secret());
        assertThat(initEnv).containsKeys("LENS_ACCESS_KEY", "LENS_SECRET_KEY");
        assertThat(env.get("AWS_REGION"))
                .as("%s: AWS_REGION (SigV4 signs with a region)", where)
                .isNotBlank();

        Map<String, Set<String>> actions = policyActionsByResource(setup.policy());
        assertThat(actions)
                .as("%s: the consumer's policy grants its operations on its bucket and prefix, nothing more", where)
                .isEqualTo(Map.of(
                        "arn:aws:s3:::" + setup.bucket() + "/" + prefix + "/*",
                        OBJECT_ACTIONS,
                        "arn:aws:s3:::" + setup.bucket(),
                        BUCKET_ACTIONS));
    }

    private static Map<String, Set<String>> policyActionsByResource(Path policy) throws IOException {
        JsonNode root = JSON.readTree(policy.toFile());
        assertThat(root.get("Version").asString()).as("%s: Version", policy).isEqualTo("2012-10-17");
        Map<String, Set<String>> byResource = new LinkedHashMap<>();
        for (JsonNode statement : root.get("Statement")) {
            assertThat(statement.get("Effect").asString())
                    .as("%s: Effect", policy)
                    .isEqualTo("Allow");
            assertThat(statement.has("Condition"))
                    .as("%s: a condition (an s3:prefix on ListBucket) would bring HeadObject's 403 back", policy)
                    .isFalse();
            for (JsonNode resource : statement.get("Resource")) {
                for (JsonNode action : statement.get("Action")) {
                    byResource
                            .computeIfAbsent(resource.asString(), r -> new TreeSet<>())
                            .add(action.asString());
                }
            }
        }
        return byResource;
    }

    @Test
    void theDocumentationShowsThePolicyTheStackGrants() throws IOException {
        Path doc = ROOT.resolve("docs/object-storage.md");
        String text = Files.readString(doc);
        Path policy = ROOT.resolve("observability/object-store/lens-archive-writer-policy.json");
        JsonNode granted = JSON.readTree(policy.toFile());
        List<JsonNode> blocks = new ArrayList<>();
        Matcher m = Pattern.compile("```json\\n(.*?)\\n```", Pattern.DOTALL).matcher(text);
        while (m.find()) {
            blocks.add(JSON.readTree(m.group(1)));
        }
        assertThat(blocks)
                .as("docs/object-storage.md should show the consumer's policy exactly as %s grants it", policy)
                .contains(granted);
        assertThat(text)
                .as("docs/object-storage.md should give the command that starts the stack with the object store")
                .contains("-f " + StackFiles.OBJECT_STORE_OVERRIDE + " --profile " + PROFILE + " up -d");
    }
}
