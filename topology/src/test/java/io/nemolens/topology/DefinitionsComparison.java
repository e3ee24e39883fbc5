package io.nemolens.topology;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.springframework.amqp.core.Binding;
import org.springframework.amqp.core.Exchange;
import org.springframework.amqp.core.Queue;

/**
 * Compares a parsed RabbitMQ definitions file (JSON objects as {@code Map}s, arrays as
 * {@code List}s) with a {@link LensTopology} and lists every difference as a sentence.
 * Numbers are compared by value, so {@code 1000}, {@code 1000.0} and {@code 1e3} are equal.
 */
final class DefinitionsComparison {

    static final String VHOST = "/";

    private static final Map<String, Object> ALL_PERMISSIONS = Map.of("configure", ".*", "write", ".*", "read", ".*");

    private final List<String> differences = new ArrayList<>();

    private DefinitionsComparison() {}

    /**
     * @param definitions the parsed definitions file
     * @param topology what it should describe
     * @param user the user that must exist and have all permissions on {@link #VHOST}
     * @return the differences, empty if none
     */
    static List<String> differences(Map<String, Object> definitions, LensTopology topology, String user) {
        DefinitionsComparison comparison = new DefinitionsComparison();
        comparison.compare(definitions, topology, user);
        return List.copyOf(comparison.differences);
    }

    private void compare(Map<String, Object> definitions, LensTopology topology, String user) {
        Map<String, Map<String, Object>> exchanges = index(definitions, "exchanges", "exchange", (e) -> str(e, "name"));
        Map<String, Map<String, Object>> queues = index(definitions, "queues", "queue", (q) -> str(q, "name"));
        Map<String, Map<String, Object>> bindings =
                index(definitions, "bindings", "binding", DefinitionsComparison::bindingKey);

        for (Exchange exchange : List.<Exchange>of(topology.exchange(), topology.deadLetterExchange())) {
            Map<String, Object> actualExchange = exchanges.remove(exchange.getName());
            if (actualExchange == null) {
                this.differences.add("exchange '" + exchange.getName() + "' is missing");
                continue;
            }
            String what = "exchange '" + exchange.getName() + "'";
            field(what, "vhost", VHOST, actualExchange);
            field(what, "type", exchange.getType(), actualExchange);
            field(what, "durable", exchange.isDurable(), actualExchange);
            field(what, "auto_delete", exchange.isAutoDelete(), actualExchange);
            field(what, "internal", exchange.isInternal(), actualExchange);
            arguments(what, exchange.getArguments(), actualExchange);
        }
        exchanges.keySet().forEach((name) -> this.differences.add("unexpected exchange '" + name + "'"));

        for (Queue queue : List.of(
                topology.processingQueue(),
                topology.poisonQueue(),
                topology.parkingLotQueue(),
                topology.poisonIndexStream())) {
            Map<String, Object> actualQueue = queues.remove(queue.getName());
            if (actualQueue == null) {
                this.differences.add("queue '" + queue.getName() + "' is missing");
                continue;
            }
            String what = "queue '" + queue.getName() + "'";
            field(what, "vhost", VHOST, actualQueue);
            field(what, "durable", queue.isDurable(), actualQueue);
            field(what, "auto_delete", queue.isAutoDelete(), actualQueue);
            // RabbitMQ's export format has no "exclusive" (definitions cannot create exclusive
            // queues): absent means false.
            Object exclusive = actualQueue.getOrDefault("exclusive", false);
            if (!Objects.equals(exclusive, queue.isExclusive())) {
                this.differences.add(
                        what + " exclusive: expected " + show(queue.isExclusive()) + " but was " + show(exclusive));
            }
            arguments(what, queue.getArguments(), actualQueue);
        }
        queues.keySet().forEach((name) -> this.differences.add("unexpected queue '" + name + "'"));

        List<Binding> expectedBindings = new ArrayList<>();
        expectedBindings.add(topology.binding());
        expectedBindings.addAll(topology.deadLetterBindings());
        for (Binding binding : expectedBindings) {
            String destinationType =
                    (binding.getDestinationType() == Binding.DestinationType.QUEUE) ? "queue" : "exchange";
            String key = bindingKey(
                    binding.getExchange(), binding.getDestination(), destinationType, binding.getRoutingKey());
            Map<String, Object> actualBinding = bindings.remove(key);
            if (actualBinding == null) {
                this.differences.add("binding " + key + " is missing");
            } else {
                field("binding " + key, "vhost", VHOST, actualBinding);
                arguments("binding " + key, binding.getArguments(), actualBinding);
            }
        }
        bindings.keySet().forEach((k) -> this.differences.add("unexpected binding " + k));

        vhostAndPermissions(definitions, user);
    }

    private void vhostAndPermissions(Map<String, Object> definitions, String user) {
        boolean vhost = list(definitions, "vhosts").stream().anyMatch((v) -> VHOST.equals(v.get("name")));
        if (!vhost) {
            this.differences.add("vhost '" + VHOST + "' is missing");
        }
        boolean userExists = list(definitions, "users").stream().anyMatch((u) -> user.equals(u.get("name")));
        if (!userExists) {
            this.differences.add("user '" + user + "' is missing");
        }
        List<Map<String, Object>> permissions = list(definitions, "permissions").stream()
                .filter((p) -> user.equals(p.get("user")) && VHOST.equals(p.get("vhost")))
                .toList();
        if (permissions.size() != 1) {
            this.differences.add("expected one permissions entry for user '" + user + "' on vhost '" + VHOST
                    + "' but found " + permissions.size());
            return;
        }
        ALL_PERMISSIONS.forEach(
                (name, value) -> field("permissions of '" + user + "'", name, value, permissions.get(0)));
    }

    private void field(String what, String name, Object expected, Map<String, Object> actual) {
        if (!actual.containsKey(name)) {
            this.differences.add(what + " has no '" + name + "' (expected " + show(expected) + ")");
        } else if (!Objects.equals(normalize(expected), normalize(actual.get(name)))) {
            this.differences.add(
                    what + " " + name + ": expected " + show(expected) + " but was " + show(actual.get(name)));
        }
    }

    private void arguments(String what, Map<String, Object> expected, Map<String, Object> actual) {
        Object value = actual.get("arguments");
        if (!(value instanceof Map<?, ?> arguments)) {
            this.differences.add(what + " has no 'arguments' object (expected " + expected + ")");
            return;
        }
        Set<String> keys = new TreeSet<>(expected.keySet());
        arguments.keySet().forEach((k) -> keys.add(String.valueOf(k)));
        for (String key : keys) {
            if (!expected.containsKey(key)) {
                this.differences.add(what + " has unexpected argument " + key + " = " + show(arguments.get(key)));
            } else if (!arguments.containsKey(key)) {
                this.differences.add(what + " lacks argument " + key + " = " + show(expected.get(key)));
            } else if (!Objects.equals(normalize(expected.get(key)), normalize(arguments.get(key)))) {
                this.differences.add(what + " argument " + key + ": expected " + show(expected.get(key)) + " but was "
                        + show(arguments.get(key)));
            }
        }
    }

    private Map<String, Map<String, Object>> index(
            Map<String, Object> definitions, String section, String kind, Function<Map<String, Object>, String> keyOf) {
        Map<String, Map<String, Object>> index = new LinkedHashMap<>();
        for (Map<String, Object> entry : list(definitions, section)) {
            String key = keyOf.apply(entry);
            if (index.put(key, entry) != null) {
                this.differences.add("duplicate " + kind + " " + key);
            }
        }
        return index;
    }

    private List<Map<String, Object>> list(Map<String, Object> definitions, String section) {
        Object value = definitions.get(section);
        if (!(value instanceof List<?> entries)) {
            this.differences.add("no '" + section + "' array");
            return List.of();
        }
        List<Map<String, Object>> result = new ArrayList<>();
        for (Object entry : entries) {
            if (entry instanceof Map<?, ?> map) {
                Map<String, Object> typed = new LinkedHashMap<>();
                map.forEach((k, v) -> typed.put(String.valueOf(k), v));
                result.add(typed);
            } else {
                this.differences.add("'" + section + "' holds a non-object: " + entry);
            }
        }
        return result;
    }

    private static String bindingKey(Map<String, Object> binding) {
        return bindingKey(
                str(binding, "source"),
                str(binding, "destination"),
                str(binding, "destination_type"),
                str(binding, "routing_key"));
    }

    private static String bindingKey(String source, String destination, String destinationType, String routingKey) {
        return "'" + source + "' -> " + destinationType + " '" + destination + "' with routing key '" + routingKey
                + "'";
    }

    private static String str(Map<String, Object> map, String key) {
        return String.valueOf(map.get(key));
    }

    /** Strings in double quotes, so that "1000" and 1000 read differently. */
    private static String show(Object value) {
        return (value instanceof String string) ? '"' + string + '"' : String.valueOf(value);
    }

    /** Numbers as stripped BigDecimals (compared by value), maps and lists element by element. */
    static Object normalize(Object value) {
        if (value instanceof Number number) {
            return new BigDecimal(number.toString()).stripTrailingZeros();
        }
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> normalized = new LinkedHashMap<>();
            map.forEach((k, v) -> normalized.put(String.valueOf(k), normalize(v)));
            return normalized;
        }
        if (value instanceof List<?> list) {
            return list.stream().map(DefinitionsComparison::normalize).toList();
        }
        return value;
    }
}
