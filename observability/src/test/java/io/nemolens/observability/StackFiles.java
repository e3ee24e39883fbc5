package io.nemolens.observability;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/** The stack's files, read as plain YAML maps, and small helpers to walk them. */
final class StackFiles {

    /** The repository root (the parent of this module). */
    static final Path ROOT = Path.of("").toAbsolutePath().getParent();

    static final Path OBSERVABILITY = ROOT.resolve("observability");

    static final String FULL_COMPOSE = "docker-compose.rabbitmq+infra.yml";

    static final String MINIMAL_COMPOSE = "docker-compose.rabbitmq.yml";

    static final List<String> COMPOSE_FILES = List.of(FULL_COMPOSE, MINIMAL_COMPOSE);

    /** Not a stack of its own: merged over either compose file, it points the consumer at the object store. */
    static final String OBJECT_STORE_OVERRIDE = "docker-compose.object-store.yml";

    static final List<String> COLLECTOR_CONFIGS =
            List.of("otel-collector-rabbitmq.yaml", "otel-collector-rabbitmq-infra.yaml");

    private static final Pattern DEFAULTED_VARIABLE = Pattern.compile("\\$\\{([A-Za-z_][A-Za-z0-9_]*):-([^}]*)}");

    private StackFiles() {}

    /** Reads a YAML file as nested maps and lists; fails with the file's name. */
    static Map<String, Object> yaml(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new AssertionError(file + " does not exist");
        }
        try {
            Object loaded = new Yaml(new SafeConstructor(new LoaderOptions())).load(Files.readString(file));
            if (!(loaded instanceof Map<?, ?>)) {
                throw new AssertionError(file + " is not a YAML mapping");
            }
            return map(loaded, file.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Map<String, Object> compose(String name) {
        return yaml(ROOT.resolve(name));
    }

    /**
     * Compose files merged as {@code docker compose -f base -f override} merges them, for overrides made of
     * mappings only (mappings merge key by key, anything else in the override replaces); {@link
     * ComposeObjectStoreTest} checks that the override is of that kind.
     */
    static Map<String, Object> merged(String base, String override) {
        return mergeMaps(compose(base), compose(override), base + " + " + override);
    }

    private static Map<String, Object> mergeMaps(Map<String, Object> base, Map<String, Object> override, String where) {
        Map<String, Object> out = new LinkedHashMap<>(base);
        override.forEach((key, value) -> {
            Object existing = out.get(key);
            out.put(
                    key,
                    existing instanceof Map<?, ?> && value instanceof Map<?, ?>
                            ? mergeMaps(map(existing, where), map(value, where), where + "." + key)
                            : value);
        });
        return out;
    }

    static Map<String, Object> collector(String name) {
        return yaml(OBSERVABILITY.resolve(name));
    }

    /** A mapping value (an absent or null one reads as empty). */
    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object value, String where) {
        if (value == null) {
            return new LinkedHashMap<>();
        }
        if (!(value instanceof Map<?, ?> m)) {
            throw new AssertionError(where + " should be a mapping, is " + value);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        ((Map<Object, Object>) m).forEach((k, v) -> out.put(String.valueOf(k), v));
        return out;
    }

    /** A sequence value (an absent or null one reads as empty). */
    static List<Object> list(Object value, String where) {
        if (value == null) {
            return List.of();
        }
        if (!(value instanceof List<?> l)) {
            throw new AssertionError(where + " should be a sequence, is " + value);
        }
        return List.copyOf(l);
    }

    /** The value at a dotted path of mapping keys, if every step exists. */
    static Optional<Object> at(Map<String, Object> root, String... path) {
        Object current = root;
        for (String key : path) {
            if (!(current instanceof Map<?, ?> m) || !m.containsKey(key)) {
                return Optional.empty();
            }
            current = m.get(key);
        }
        return Optional.ofNullable(current);
    }

    static Map<String, Object> services(Map<String, Object> compose, String file) {
        return map(compose.get("services"), file + ": services");
    }

    static Map<String, Object> service(Map<String, Object> compose, String file, String name) {
        Map<String, Object> services = services(compose, file);
        if (!services.containsKey(name)) {
            throw new AssertionError(file + ": no service '" + name + "' (services: " + services.keySet() + ")");
        }
        return map(services.get(name), file + ": services." + name);
    }

    /** A service's environment as a map, whether written as a mapping or as KEY=VALUE items. */
    static Map<String, String> environment(Map<String, Object> service, String where) {
        Object env = service.get("environment");
        Map<String, String> out = new LinkedHashMap<>();
        if (env instanceof List<?> items) {
            for (Object item : items) {
                String s = String.valueOf(item);
                int eq = s.indexOf('=');
                out.put(eq < 0 ? s : s.substring(0, eq), eq < 0 ? "" : s.substring(eq + 1));
            }
        } else {
            map(env, where + ".environment").forEach((k, v) -> out.put(k, v == null ? "" : String.valueOf(v)));
        }
        return out;
    }

    /** A compose value with every {@code ${VAR:-default}} replaced by its default, as with an empty environment. */
    static String withDefaults(String value) {
        Matcher m = DEFAULTED_VARIABLE.matcher(value);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(sb, Matcher.quoteReplacement(m.group(2)));
        }
        m.appendTail(sb);
        return sb.toString();
    }

    /** A compose value as the container gets it with an empty environment: defaults applied, {@code $$} as {@code $}. */
    static String interpolated(String value) {
        return withDefaults(value).replace("$$", "$");
    }

    /**
     * A short-syntax volume {@code SOURCE:TARGET[:MODE]}.
     *
     * @param source a host path (starts with {@code .}, {@code /} or {@code ~}) or a named volume
     * @param target the path in the container
     * @param readOnly whether the mode says {@code ro}
     */
    record Mount(String source, String target, boolean readOnly) {

        static Mount parse(String spec) {
            String[] parts = spec.split(":");
            if (parts.length < 2) {
                throw new AssertionError("volume '" + spec + "' has no target");
            }
            return new Mount(
                    parts[0],
                    parts[1],
                    parts.length > 2 && List.of(parts[2].split(",")).contains("ro"));
        }

        boolean isHostPath() {
            return source.startsWith(".") || source.startsWith("/") || source.startsWith("~");
        }
    }

    static List<Mount> mounts(Map<String, Object> service, String where) {
        return list(service.get("volumes"), where + ".volumes").stream()
                .map(v -> Mount.parse(String.valueOf(v)))
                .toList();
    }

    /** The container ports a service publishes ({@code "HOST:CONTAINER"} or {@code "CONTAINER"}) or exposes. */
    static List<Integer> containerPorts(Map<String, Object> service, String where) {
        List<Integer> ports = new java.util.ArrayList<>();
        for (Object p : list(service.get("ports"), where + ".ports")) {
            String s = String.valueOf(p);
            String container = s.substring(s.lastIndexOf(':') + 1);
            int slash = container.indexOf('/');
            ports.add(Integer.parseInt(slash < 0 ? container : container.substring(0, slash)));
        }
        for (Object p : list(service.get("expose"), where + ".expose")) {
            ports.add(Integer.parseInt(String.valueOf(p)));
        }
        return ports;
    }

    /** {@code observability/rabbitmq/rabbitmq.conf} as its keys and values (comments and blank lines left out). */
    static Map<String, String> rabbitmqConf() throws IOException {
        Map<String, String> conf = new java.util.LinkedHashMap<>();
        for (String line : Files.readAllLines(OBSERVABILITY.resolve("rabbitmq/rabbitmq.conf"))) {
            String l = line.strip();
            if (!l.isEmpty() && !l.startsWith("#") && l.contains("=")) {
                conf.put(
                        l.substring(0, l.indexOf('=')).strip(),
                        l.substring(l.indexOf('=') + 1).strip());
            }
        }
        return conf;
    }
}
