package io.nemolens.generator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.google.protobuf.Message;
import io.nemolens.generator.TelemetryGenerator.Faults;
import io.nemolens.generator.TelemetryGenerator.Kind;
import io.nemolens.generator.TelemetryGenerator.Settings;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.logs.v1.LogRecord;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The stragglers {@link TelemetryGenerator} makes: a slow rank, a GPU that throttles, a host with network
 * errors; each compared with the same seed without it.
 */
class TelemetryGeneratorFaultsTest {

    private static final long T0 = 1_764_417_600_000_000_000L;
    private static final String THROTTLE_REASONS = "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS";

    private static List<Message> generate(Settings settings, int batches) {
        TelemetryGenerator generator = new TelemetryGenerator(settings);
        List<Message> requests = new ArrayList<>();
        for (int i = 0; i < batches; i++) {
            requests.add(generator.next().request());
        }
        return requests;
    }

    private static Settings settings(List<Kind> kinds, int ranks, Faults faults) {
        return new Settings(kinds, "run-faults", ranks, 8, 96, 32, 7, T0, faults);
    }

    private static Faults slow(int rank, double factor, long from) {
        return new Faults(rank, factor, from, null, null);
    }

    @Test
    void withoutFaultsTheStreamIsWhatItWasBeforeFaultsExisted() throws Exception {
        Settings old = new Settings(List.of(Kind.values()), "run-gold", 20, 8, 96, 32, 42, T0);
        assertThat(old.faults()).isEqualTo(Faults.NONE);
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        for (Message request : generate(old, 400)) {
            sha.update(request.toByteArray());
        }
        // the digest of these 400 batches as the generator wrote them before it had faults
        assertThat(HexFormat.of().formatHex(sha.digest()))
                .isEqualTo("5fc33b8ae7dc825450baf3be6390bb5901108e197ef28e6837187e18d7cc2471");
    }

    @Test
    void theSameSeedAndFaultsGiveTheSameStream() {
        Faults all = new Faults(3, 1.5, 10, 12, 9);
        Settings settings = settings(List.of(Kind.values()), 16, all);

        assertThat(generate(settings, 300)).isEqualTo(generate(settings, 300));
    }

    @Test
    void theSlowRanksStepsTakeTheFactorLongerFromItsFirstSlowIterationOn() {
        List<Message> healthy = generate(settings(List.of(Kind.SPANS), 2, Faults.NONE), 6);
        List<Message> slowed = generate(settings(List.of(Kind.SPANS), 2, slow(1, 1.5, 20)), 6);

        Map<String, Long> before = durations(healthy);
        Map<String, Long> after = durations(slowed);
        assertThat(after.keySet())
                .isEqualTo(before.keySet())
                .contains("1/1/megatron.train_step", "1/96/megatron.train_step");
        for (Map.Entry<String, Long> e : before.entrySet()) {
            String[] key = e.getKey().split("/", -1);
            long iteration = Long.parseLong(key[1]);
            double ratio = after.get(e.getKey()) / (double) e.getValue();
            if (key[0].equals("1") && iteration >= 20) {
                // the 2 ms around the children stay as they were
                assertThat(ratio)
                        .as(e.getKey())
                        .isCloseTo(1.5, within(key[2].equals("megatron.train_step") ? 2e-3 : 1e-6));
            } else {
                assertThat(ratio).as(e.getKey()).isEqualTo(1.0);
            }
        }
        for (int i = 0; i < healthy.size(); i += 2) {
            assertThat(slowed.get(i)).as("rank 0's batch %d", i).isEqualTo(healthy.get(i));
        }
        assertThat(start(slowed, "1/21/megatron.train_step"))
                .as("its clock advances by its longer steps")
                .isGreaterThan(start(healthy, "1/21/megatron.train_step"));
    }

    @Test
    void theSlowRanksLogLinesSayItsLongerSteps() {
        List<Message> healthy = generate(settings(List.of(Kind.LOGS), 1, Faults.NONE), 2);
        List<Message> slowed = generate(settings(List.of(Kind.LOGS), 1, slow(0, 2.0, 40)), 2);

        Map<Long, Double> before = elapsedMs(healthy);
        Map<Long, Double> after = elapsedMs(slowed);
        assertThat(after).containsKeys(39L, 40L, 64L);
        after.forEach((iteration, ms) -> assertThat(ms / before.get(iteration))
                .as("iteration %d", iteration)
                .isCloseTo(iteration >= 40 ? 2.0 : 1.0, within(2e-3)));
    }

    @Test
    void theThrottledGpuIsHotAndClockedDownAndSaysWhy() {
        List<Message> healthy = generate(settings(List.of(Kind.GPU), 16, Faults.NONE), 6);
        // rank 13: GPU 5 of dgx-a100-001, the second host
        List<Message> throttled = generate(settings(List.of(Kind.GPU), 16, new Faults(null, 1.3, 50, 13, null)), 6);

        for (int i = 0; i < throttled.size(); i++) {
            Message scrape = throttled.get(i);
            boolean secondHost = i % 2 == 1;
            List<String> names = new ArrayList<>(SentRequests.metrics(healthy.get(i)).stream()
                    .map(Metric::getName)
                    .toList());
            names.add(names.indexOf("up"), THROTTLE_REASONS);
            assertThat(SentRequests.metrics(scrape).stream().map(Metric::getName))
                    .as("the healthy scrape's metrics, and the reasons after dcgm-exporter's own")
                    .containsExactlyElementsOf(names);
            Map<String, Double> reasons = values(scrape, THROTTLE_REASONS, "gpu");
            Map<String, Double> clocks = values(scrape, "DCGM_FI_DEV_SM_CLOCK", "gpu");
            Map<String, Double> temperatures = values(scrape, "DCGM_FI_DEV_GPU_TEMP", "gpu");
            Map<String, Double> power = values(scrape, "DCGM_FI_DEV_POWER_USAGE", "gpu");
            assertThat(reasons)
                    .as("every GPU says why its clocks are held back")
                    .hasSize(8);
            assertThat(InfraRequests.dataPoints((ExportMetricsServiceRequest) scrape))
                    .isEqualTo(InfraRequests.dataPoints((ExportMetricsServiceRequest) healthy.get(i)) + 8);
            assertThat(values(scrape, "scrape_samples_scraped", "")).containsValue(8.0 * 21);
            for (String gpu : reasons.keySet()) {
                if (secondHost && gpu.equals("5")) {
                    assertThat(reasons.get(gpu)).isEqualTo(96.0);
                    assertThat(clocks.get(gpu)).isBetween(1005.0, 1100.0);
                    assertThat(temperatures.get(gpu)).isBetween(87.0, 92.0);
                    assertThat(power.get(gpu)).isBetween(250.0, 300.0);
                } else {
                    assertThat(reasons.get(gpu))
                            .as("GPU %s of scrape %d", gpu, i)
                            .isZero();
                    assertThat(clocks.get(gpu)).isEqualTo(1410.0);
                    assertThat(temperatures.get(gpu))
                            .as("a healthy GPU reads as without the fault")
                            .isEqualTo(values(healthy.get(i), "DCGM_FI_DEV_GPU_TEMP", "gpu")
                                    .get(gpu));
                }
            }
        }
        for (Message scrape : healthy) {
            assertThat(SentRequests.metrics(scrape).stream().map(Metric::getName))
                    .doesNotContain(THROTTLE_REASONS);
            assertThat(values(scrape, "scrape_samples_scraped", "")).containsValue(8.0 * 20);
        }
    }

    @Test
    void theFlakyHostRetransmitsAndCountsInfinibandErrors() {
        // rank 9 runs on dgx-a100-001, the second host
        List<Message> scrapes = generate(settings(List.of(Kind.NODE), 16, new Faults(null, 1.3, 50, null, 9)), 8);

        Map<String, Double> last = new HashMap<>();
        for (int i = 0; i < scrapes.size(); i++) {
            String host = i % 2 == 0 ? "healthy" : "flaky";
            Map<String, Double> now = new LinkedHashMap<>();
            values(scrapes.get(i), "node_netstat_Tcp_RetransSegs", "").forEach((k, v) -> now.put("retransmits", v));
            values(scrapes.get(i), "node_infiniband_port_errors_received_total", "device")
                    .forEach((port, v) -> now.put("errors " + port, v));
            values(scrapes.get(i), "node_infiniband_symbol_error_total", "device")
                    .forEach((port, v) -> now.put("symbol errors " + port, v));
            assertThat(now).hasSize(5);
            for (Map.Entry<String, Double> e : now.entrySet()) {
                double delta = e.getValue() - last.getOrDefault(host + " " + e.getKey(), 0.0);
                last.put(host + " " + e.getKey(), e.getValue());
                String what = e.getKey().replaceAll(" mlx5_\\d", "");
                double[] range = switch (host + " " + what) {
                    case "flaky retransmits" -> new double[] {300, 600};
                    case "flaky errors" -> new double[] {5, 20};
                    case "flaky symbol errors" -> new double[] {1, 5};
                    case "healthy retransmits" -> new double[] {0, 19};
                    case "healthy errors" -> new double[] {0, 1};
                    default -> new double[] {0, 0};
                };
                assertThat(delta).as("%s %s in scrape %d", host, e.getKey(), i).isBetween(range[0], range[1]);
            }
        }
    }

    @Test
    void faultsMustFitTheRun() {
        assertThatThrownBy(() -> settings(List.of(Kind.SPANS), 8, slow(8, 1.3, 50)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("slow rank must be one of the ranks 0 to 7, got 8");
        assertThatThrownBy(() ->
                        new Settings(List.of(Kind.GPU), "r", 16, 4, 1, 1, 1, T0, new Faults(null, 1.3, 50, 13, null)))
                .hasMessage("throttled rank 13 runs on GPU 5, but there are 4 GPUs per host");
        assertThatThrownBy(() -> slow(0, 1.0, 50)).hasMessage("slow factor must be a number above 1, got 1.0");
        assertThatThrownBy(() -> slow(0, 1.3, 0)).hasMessage("slow-from iteration must be at least 1, got 0");
        assertThatThrownBy(() -> new Faults(null, 1.3, 50, null, -1))
                .hasMessage("flaky network rank must be at least 0, got -1");
    }

    /** Span durations by {@code rank/iteration/name}. */
    private static Map<String, Long> durations(List<Message> requests) {
        Map<String, Long> durations = new HashMap<>();
        spans(requests)
                .forEach((key, span) -> durations.put(key, span.getEndTimeUnixNano() - span.getStartTimeUnixNano()));
        return durations;
    }

    private static long start(List<Message> requests, String key) {
        return spans(requests).get(key).getStartTimeUnixNano();
    }

    private static Map<String, Span> spans(List<Message> requests) {
        Map<String, Span> spans = new HashMap<>();
        for (Message request : requests) {
            for (ResourceSpans rs : ((ExportTraceServiceRequest) request).getResourceSpansList()) {
                long rank = intAttribute(rs.getResource().getAttributesList(), "dl.rank");
                rs.getScopeSpansList()
                        .forEach(ss -> ss.getSpansList()
                                .forEach(span -> spans.put(
                                        rank + "/" + intAttribute(span.getAttributesList(), "megatron.iteration") + "/"
                                                + span.getName(),
                                        span)));
            }
        }
        return spans;
    }

    /** The elapsed time of each iteration's {@code training_log} line. */
    private static Map<Long, Double> elapsedMs(List<Message> requests) {
        Pattern elapsed = Pattern.compile("elapsed time per iteration \\(ms\\): ([0-9.]+)");
        Map<Long, Double> ms = new HashMap<>();
        for (Message request : requests) {
            for (LogRecord log : SentRequests.logs(request)) {
                Matcher m = elapsed.matcher(log.getBody().getStringValue());
                if (m.find()) {
                    ms.put(intAttribute(log.getAttributesList(), "megatron.iteration"), Double.parseDouble(m.group(1)));
                }
            }
        }
        return ms;
    }

    private static long intAttribute(List<KeyValue> attributes, String key) {
        return attributes.stream()
                .filter(kv -> kv.getKey().equals(key))
                .findFirst()
                .orElseThrow()
                .getValue()
                .getIntValue();
    }

    /** The values of a metric's points by their label {@code label} ({@code ""} for a point without it). */
    private static Map<String, Double> values(Message request, String metric, String label) {
        Map<String, Double> values = new LinkedHashMap<>();
        for (Metric m : SentRequests.metrics(request)) {
            if (m.getName().equals(metric)) {
                List<NumberDataPoint> points = m.hasGauge()
                        ? m.getGauge().getDataPointsList()
                        : m.getSum().getDataPointsList();
                for (NumberDataPoint p : points) {
                    values.put(SentRequests.text(p.getAttributesList(), label), p.getAsDouble());
                }
            }
        }
        return values;
    }
}
