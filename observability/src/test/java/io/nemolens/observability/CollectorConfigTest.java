package io.nemolens.observability;

import static io.nemolens.observability.StackFiles.at;
import static io.nemolens.observability.StackFiles.list;
import static io.nemolens.observability.StackFiles.map;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.nemolens.topology.LensTopology;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

/**
 * The collector configurations are wired: pipelines reference only components the file defines, every
 * defined component is used, every pipeline has a receiver and an exporter, extensions (the encoding
 * extension above all) are started, and the rabbitmq exporter publishes to the exchange the topology
 * declares, with the exporter's real configuration keys.
 */
class CollectorConfigTest {

    static final List<String> CONFIGS = StackFiles.COLLECTOR_CONFIGS;

    private static final List<String> SECTIONS = List.of("receivers", "processors", "exporters", "connectors");

    /** The rabbitmq exporter's configuration keys (collector-contrib exporter/rabbitmqexporter config.schema.yaml). */
    private static final Set<String> RABBITMQ_KEYS =
            Set.of("connection", "routing", "durable", "encoding_extension", "retry_on_failure");

    private static final Set<String> RABBITMQ_CONNECTION_KEYS = Set.of(
            "endpoint",
            "vhost",
            "auth",
            "tls",
            "name",
            "connection_timeout",
            "heartbeat",
            "publish_confirmation_timeout");
    private static final Set<String> RABBITMQ_ROUTING_KEYS = Set.of("exchange", "routing_key");

    private static Map<String, Object> pipelines(Map<String, Object> config, String file) {
        Map<String, Object> pipelines =
                map(at(config, "service", "pipelines").orElse(null), file + ": service.pipelines");
        assertThat(pipelines).as("%s: service.pipelines is empty", file).isNotEmpty();
        return pipelines;
    }

    private static List<String> refs(Map<String, Object> pipeline, String section, String where) {
        return list(pipeline.get(section), where + "." + section).stream()
                .map(String::valueOf)
                .toList();
    }

    @ParameterizedTest
    @FieldSource("CONFIGS")
    void pipelinesReferenceOnlyDefinedComponents(String file) {
        Map<String, Object> config = StackFiles.collector(file);
        List<String> problems = new ArrayList<>();
        pipelines(config, file).forEach((name, value) -> {
            Map<String, Object> pipeline = map(value, file + ": pipeline " + name);
            for (String section : List.of("receivers", "processors", "exporters")) {
                for (String ref : refs(pipeline, section, "pipeline " + name)) {
                    boolean defined =
                            map(config.get(section), file + ": " + section).containsKey(ref)
                                    || (!section.equals("processors")
                                            && map(config.get("connectors"), file + ": connectors")
                                                    .containsKey(ref));
                    if (!defined) {
                        problems.add("pipeline '" + name + "' uses " + section + " '" + ref
                                + "', which the file does not define under " + section + ":");
                    }
                }
            }
        });
        assertThat(problems).as("%s", file).isEmpty();
    }

    @ParameterizedTest
    @FieldSource("CONFIGS")
    void everyPipelineIsWiredAndEveryComponentUsed(String file) {
        Map<String, Object> config = StackFiles.collector(file);
        Set<String> used = new LinkedHashSet<>();
        List<String> problems = new ArrayList<>();
        pipelines(config, file).forEach((name, value) -> {
            Map<String, Object> pipeline = map(value, file + ": pipeline " + name);
            String type = name.contains("/") ? name.substring(0, name.indexOf('/')) : name;
            if (!List.of("traces", "metrics", "logs").contains(type)) {
                problems.add("pipeline '" + name + "' is not of type traces, metrics or logs");
            }
            if (refs(pipeline, "receivers", name).isEmpty()) {
                problems.add("pipeline '" + name + "' has no receiver");
            }
            if (refs(pipeline, "exporters", name).isEmpty()) {
                problems.add("pipeline '" + name + "' has no exporter");
            }
            for (String section : List.of("receivers", "processors", "exporters")) {
                refs(pipeline, section, name).forEach(ref -> used.add(section + ":" + ref));
            }
        });
        for (String section : SECTIONS) {
            for (String component :
                    map(config.get(section), file + ": " + section).keySet()) {
                if (!used.contains(section + ":" + component) && !(section.equals("connectors"))) {
                    problems.add(section + " '" + component + "' is defined but no pipeline uses it");
                }
            }
        }
        assertThat(problems).as("%s", file).isEmpty();
    }

    @ParameterizedTest
    @FieldSource("CONFIGS")
    void everyPipelineBatchesWithItsOwnBatchProcessor(String file) {
        Map<String, Object> config = StackFiles.collector(file);
        Map<String, String> batchOwner = new java.util.HashMap<>();
        pipelines(config, file).forEach((name, value) -> {
            List<String> batches = refs(map(value, name), "processors", name).stream()
                    .filter(p -> p.equals("batch") || p.startsWith("batch/"))
                    .toList();
            assertThat(batches)
                    .as(
                            "%s: pipeline '%s' should have exactly one batch processor (one RabbitMQ message per batch)",
                            file, name)
                    .hasSize(1);
            String previous = batchOwner.put(batches.get(0), name);
            assertThat(previous)
                    .as(
                            "%s: pipelines '%s' and '%s' share batch processor '%s'; give each signal its own",
                            file, previous, name, batches.get(0))
                    .isNull();
            assertThat(at(config, "processors", batches.get(0), "send_batch_max_size"))
                    .as(
                            "%s: %s needs send_batch_max_size, or a batch can outgrow the broker's max_message_size",
                            file, batches.get(0))
                    .isPresent();
        });
    }

    @ParameterizedTest
    @FieldSource("CONFIGS")
    void extensionsAreDefinedAndStarted(String file) {
        Map<String, Object> config = StackFiles.collector(file);
        Set<String> defined =
                map(config.get("extensions"), file + ": extensions").keySet();
        List<String> started =
                list(at(config, "service", "extensions").orElse(null), file + ": service.extensions").stream()
                        .map(String::valueOf)
                        .toList();
        assertThat(started)
                .as("%s: service.extensions names extensions the file does not define (defined: %s)", file, defined)
                .allMatch(defined::contains);
        assertThat(defined)
                .as("%s: defined extensions missing from service.extensions are never started", file)
                .allMatch(started::contains);
        assertThat(started)
                .as("%s: health_check should be started", file)
                .anyMatch(e -> e.equals("health_check") || e.startsWith("health_check/"));
    }

    @ParameterizedTest
    @FieldSource("CONFIGS")
    void rabbitmqExporterPublishesToTheTopologysExchangeThroughAStartedEncodingExtension(String file) {
        Map<String, Object> config = StackFiles.collector(file);
        Map<String, Object> exporters = map(config.get("exporters"), file + ": exporters");
        List<String> rabbitmq = exporters.keySet().stream()
                .filter(e -> e.equals("rabbitmq") || e.startsWith("rabbitmq/"))
                .toList();
        assertThat(rabbitmq).as("%s: no rabbitmq exporter", file).isNotEmpty();
        for (String id : rabbitmq) {
            Map<String, Object> exporter = map(exporters.get(id), file + ": exporters." + id);
            String where = file + ": exporters." + id;
            assertThat(exporter.keySet())
                    .as("%s has keys the rabbitmq exporter does not know (it knows %s)", where, RABBITMQ_KEYS)
                    .isSubsetOf(RABBITMQ_KEYS);
            assertThat(map(exporter.get("connection"), where + ".connection").keySet())
                    .as("%s.connection has unknown keys (known: %s)", where, RABBITMQ_CONNECTION_KEYS)
                    .isSubsetOf(RABBITMQ_CONNECTION_KEYS);
            assertThat(map(exporter.get("routing"), where + ".routing").keySet())
                    .as("%s.routing has unknown keys (known: %s)", where, RABBITMQ_ROUTING_KEYS)
                    .isSubsetOf(RABBITMQ_ROUTING_KEYS);
            assertThat(at(exporter, "connection", "endpoint"))
                    .as("%s.connection.endpoint is required", where)
                    .isPresent();
            assertThat(at(exporter, "connection", "auth", "plain", "username"))
                    .as("%s.connection.auth.plain.username is required", where)
                    .isPresent();
            assertThat(at(exporter, "routing", "exchange"))
                    .as("%s.routing.exchange must be the exchange LensTopology declares", where)
                    .contains(LensTopology.DEFAULT_EXCHANGE);
            assertThat(at(exporter, "routing", "routing_key"))
                    .as(
                            "%s.routing.routing_key must stay unset: the consumer reads the signal from the default keys otlp_spans/otlp_metrics/otlp_logs",
                            where)
                    .isEmpty();
            assertThat(at(exporter, "durable").orElse(Boolean.TRUE))
                    .as("%s.durable must be true (persistent messages)", where)
                    .isEqualTo(Boolean.TRUE);

            String encoding = at(exporter, "encoding_extension")
                    .map(String::valueOf)
                    .orElseThrow(() -> new AssertionError(where + ".encoding_extension is not set"));
            Map<String, Object> extensions = map(config.get("extensions"), file + ": extensions");
            assertThat(extensions)
                    .as("%s.encoding_extension '%s' is not defined under extensions:", where, encoding)
                    .containsKey(encoding);
            assertThat(encoding)
                    .as("%s.encoding_extension should be an otlp_encoding extension", where)
                    .startsWith("otlp_encoding");
            assertThat(at(extensions, encoding, "protocol"))
                    .as("extensions.%s.protocol", encoding)
                    .hasValueSatisfying(p -> assertThat(p).isIn("otlp_json", "otlp_proto"));
            assertThat(list(at(config, "service", "extensions").orElse(null), "service.extensions"))
                    .as(
                            "%s: encoding extension '%s' must be listed under service.extensions, or the exporter cannot find it at start",
                            file, encoding)
                    .contains(encoding);
            boolean exported = pipelines(config, file).values().stream()
                    .allMatch(p ->
                            refs(map(p, "pipeline"), "exporters", "pipeline").contains(id));
            assertThat(exported)
                    .as("%s: every pipeline should export to %s", file, id)
                    .isTrue();
        }
    }

    @ParameterizedTest
    @FieldSource("CONFIGS")
    void listenersBindAllInterfacesInTheirContainer(String file) {
        Map<String, Object> config = StackFiles.collector(file);
        assertThat(at(config, "receivers", "otlp", "protocols", "grpc", "endpoint"))
                .as("%s: OTLP gRPC endpoint", file)
                .contains("0.0.0.0:4317");
        assertThat(at(config, "receivers", "otlp", "protocols", "http", "endpoint"))
                .as("%s: OTLP HTTP endpoint", file)
                .contains("0.0.0.0:4318");
        assertThat(at(config, "extensions", "health_check", "endpoint"))
                .as("%s: health_check endpoint", file)
                .contains("0.0.0.0:13133");
    }

    @Test
    void infraConfigIsTheMinimalOnePlusScrapers() {
        Map<String, Object> minimal = StackFiles.collector("otel-collector-rabbitmq.yaml");
        Map<String, Object> infra = StackFiles.collector("otel-collector-rabbitmq-infra.yaml");
        for (String section : List.of("extensions", "processors", "exporters")) {
            assertThat(infra.get(section))
                    .as("%s: should be the same in both collector configs", section)
                    .isEqualTo(minimal.get(section));
        }
        assertThat(at(infra, "receivers", "otlp"))
                .as("receivers.otlp should be the same in both")
                .isEqualTo(at(minimal, "receivers", "otlp"));
        assertThat(map(infra.get("receivers"), "receivers").keySet())
                .containsExactlyInAnyOrder("otlp", "prometheus", "hostmetrics");
        assertThat(map(minimal.get("receivers"), "receivers").keySet())
                .as("the minimal config scrapes nothing")
                .containsExactly("otlp");
        assertThat(at(infra, "service", "pipelines", "metrics", "receivers"))
                .as("infra metrics pipeline")
                .hasValueSatisfying(r -> assertThat(list(r, "receivers"))
                        .containsExactlyInAnyOrder("otlp", "prometheus", "hostmetrics"));
        Map<String, Object> scrapers =
                map(at(infra, "receivers", "hostmetrics", "scrapers").orElse(null), "hostmetrics.scrapers");
        assertThat(scrapers.keySet())
                .as("hostmetrics scrapers")
                .containsExactlyInAnyOrder("cpu", "memory", "disk", "filesystem", "network", "load");
    }

    /** The {@code job_name -> targets} of the prometheus receiver of a config. */
    static Map<String, List<String>> scrapeTargets(Map<String, Object> config, String file) {
        Map<String, List<String>> out = new java.util.LinkedHashMap<>();
        for (Object job : list(
                at(config, "receivers", "prometheus", "config", "scrape_configs")
                        .orElse(null),
                file + ": scrape_configs")) {
            Map<String, Object> j = map(job, file + ": scrape config");
            List<String> targets = new ArrayList<>();
            for (Object sc : list(j.get("static_configs"), "static_configs")) {
                list(map(sc, "static_config").get("targets"), "targets").forEach(t -> targets.add(String.valueOf(t)));
            }
            if (out.put(String.valueOf(j.get("job_name")), targets) != null) {
                fail(file + ": job_name " + j.get("job_name") + " twice");
            }
        }
        return out;
    }

    @Test
    void infraConfigScrapesDcgmAndNodeExporterByJob() {
        Map<String, List<String>> jobs =
                scrapeTargets(StackFiles.collector("otel-collector-rabbitmq-infra.yaml"), "infra");
        assertThat(jobs)
                .as("scrape jobs (service.name of the scraped metrics is the job name)")
                .containsOnlyKeys("dcgm-exporter", "node-exporter");
        assertThat(jobs.get("dcgm-exporter")).singleElement().asString().endsWith(":9400");
        assertThat(jobs.get("node-exporter")).singleElement().asString().endsWith(":9100");
    }
}
