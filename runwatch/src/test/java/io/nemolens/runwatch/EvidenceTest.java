package io.nemolens.runwatch;

import static io.nemolens.runwatch.Telemetry.gpu;
import static io.nemolens.runwatch.Telemetry.node;
import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.handlers.record.GpuSample;
import io.nemolens.handlers.record.NodeSample;
import io.nemolens.testing.MutableClock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class EvidenceTest {

    private static final long SCRAPE = 15_000_000_000L;

    private final Telemetry telemetry = new Telemetry();
    private final RunWatch watch = new RunWatch(RunWatchSettings.DEFAULTS, MutableClock.at("2026-12-07T12:00:00Z"));

    /** 16 ranks on host-0 and host-1; rank 13 (GPU 5 of host-1) 1.3 x slower from iteration 1. */
    private Straggler straggler() {
        for (int i = 1; i <= 10; i++) {
            for (int r = 0; r < 16; r++) {
                watch.recordSpans(telemetry.step(Telemetry.RUN, r, i, r == 13 ? 1950 : 1500));
            }
        }
        watch.judge();
        return watch.run(Telemetry.RUN).orElseThrow().stragglers().get(0);
    }

    private void scrapeGpus(boolean throttled) {
        List<GpuSample> samples = new ArrayList<>();
        for (int h = 0; h < 2; h++) {
            for (int g = 0; g < 8; g++) {
                boolean hot = throttled && h == 1 && g == 5;
                String host = "host-" + h;
                samples.add(gpu(host, g, "DCGM_FI_DEV_SM_CLOCK", hot ? 1040 : 1410));
                samples.add(gpu(host, g, "DCGM_FI_DEV_GPU_TEMP", hot ? 90 : 45 + g));
                samples.add(gpu(host, g, "DCGM_FI_DEV_POWER_USAGE", hot ? 270 : 340));
                samples.add(gpu(host, g, "DCGM_FI_DEV_XID_ERRORS", 0));
                samples.add(gpu(host, g, "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", hot ? 0x60 : 0));
                samples.add(gpu(host, g, "DCGM_FI_DEV_FB_USED", 70_000));
            }
        }
        watch.recordGpuSamples(samples);
    }

    /** Two node-exporter scrapes of both hosts, two InfiniBand ports each; host-1 retransmits and drops if flaky. */
    private void scrapeNodes(boolean flaky) {
        for (int s = 0; s < 2; s++) {
            for (int h = 0; h < 2; h++) {
                boolean bad = flaky && h == 1;
                String host = "host-" + h;
                long t = 1_000_000_000_000L + s * SCRAPE;
                List<NodeSample> scrape = new ArrayList<>();
                scrape.add(node(host, "node_netstat_Tcp_RetransSegs", "", 1000 + s * (bad ? 450 : 9), t));
                for (String port : List.of("1", "2")) {
                    scrape.add(node(host, "node_infiniband_port_errors_received_total", port, s * (bad ? 6 : 0), t));
                    scrape.add(node(host, "node_infiniband_port_data_received_bytes_total", port, s * 1e9, t));
                }
                watch.recordNodeSamples(scrape);
            }
        }
    }

    @Test
    void aThrottlingGpuIsNamedFirstWithItsReasonsAndTheRunsMedians() {
        scrapeGpus(true);
        scrapeNodes(false);

        Straggler straggler = straggler();

        assertThat(straggler.rank()).isEqualTo(13);
        assertThat(straggler.host()).isEqualTo("host-1");
        assertThat(straggler.gpu()).isEqualTo(5);
        List<Evidence> unusual =
                straggler.evidence().stream().filter(Evidence::unusual).toList();
        assertThat(unusual)
                .extracting(Evidence::field)
                .containsExactly(
                        ScrapedField.SM_CLOCK,
                        ScrapedField.CLOCK_THROTTLE_REASONS,
                        ScrapedField.GPU_TEMP,
                        ScrapedField.POWER_USAGE);
        assertThat(straggler.evidence()).startsWith(unusual.toArray(Evidence[]::new));
        Evidence clock = unusual.get(0);
        assertThat(clock.subject()).isEqualTo("GPU 5 of host-1");
        assertThat(clock.value()).isEqualTo(1040);
        assertThat(clock.typical()).isEqualTo(1410);
        assertThat(clock.words()).isEqualTo("1040 MHz (the run's others: 1410 MHz)");
        assertThat(unusual.get(1).words()).startsWith("0x60 SW thermal slowdown, HW thermal slowdown");
        assertThat(straggler.evidence())
                .filteredOn(e -> !e.unusual())
                .extracting(Evidence::field)
                .contains(
                        ScrapedField.XID_ERRORS, ScrapedField.TCP_RETRANSMITS, ScrapedField.INFINIBAND_RECEIVE_ERRORS);
    }

    @Test
    void aHostThatRetransmitsAndDropsOnItsInfinibandPortsIsNamed() {
        scrapeGpus(false);
        scrapeNodes(true);

        Straggler straggler = straggler();

        List<Evidence> unusual =
                straggler.evidence().stream().filter(Evidence::unusual).toList();
        assertThat(unusual)
                .extracting(Evidence::field)
                .containsExactly(ScrapedField.TCP_RETRANSMITS, ScrapedField.INFINIBAND_RECEIVE_ERRORS);
        assertThat(unusual.get(0).subject()).isEqualTo("host-1");
        assertThat(unusual.get(0).value()).isEqualTo(30.0);
        assertThat(unusual.get(0).typical()).isEqualTo(0.6);
        assertThat(unusual.get(1).value()).as("two ports, 6 each over 15 s").isEqualTo(0.8);
        assertThat(unusual.get(1).words()).isEqualTo("0.80/s (the run's others: 0/s)");
    }

    @Test
    void withoutScrapesAStragglerHasNoEvidence() {
        assertThat(straggler().evidence()).isEmpty();
    }

    @Test
    void theThrottleReasonsAreNamedAsNvmlNamesThem() {
        assertThat(ScrapedField.reasons(0)).isEqualTo("none");
        assertThat(ScrapedField.reasons(0x4)).isEqualTo("SW power cap");
        assertThat(ScrapedField.reasons(0x88 | 0x1000)).isEqualTo("HW slowdown, HW power brake slowdown, 0x1000");
        assertThat(EvidenceFinder.unusual(ScrapedField.CLOCK_THROTTLE_REASONS, 0x4, 0))
                .isFalse();
        assertThat(EvidenceFinder.unusual(ScrapedField.CLOCK_THROTTLE_REASONS, 0x8, 0))
                .isTrue();
        assertThat(ScrapedField.ofMetricName("DCGM_FI_DEV_CLOCKS_EVENT_REASONS"))
                .isEqualTo(ScrapedField.CLOCK_THROTTLE_REASONS);
    }
}
