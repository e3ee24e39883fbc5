package io.nemolens.runwatch;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HostSamplesTest {

    private static final long T0 = 1_000_000_000_000L;
    private static final long SCRAPE = 15_000_000_000L;

    private final HostSamples host = new HostSamples();

    @Test
    void aCountersRateIsTheSumOfItsSeriesIncreasesPerSecond() {
        host.counter(ScrapedField.INFINIBAND_RECEIVE_ERRORS, "mlx5_0", "1", 100, T0);
        host.counter(ScrapedField.INFINIBAND_RECEIVE_ERRORS, "mlx5_1", "1", 7, T0);
        assertThat(host.rate(ScrapedField.INFINIBAND_RECEIVE_ERRORS))
                .as("one scrape")
                .isNaN();

        host.counter(ScrapedField.INFINIBAND_RECEIVE_ERRORS, "mlx5_0", "1", 130, T0 + SCRAPE);
        host.counter(ScrapedField.INFINIBAND_RECEIVE_ERRORS, "mlx5_1", "1", 22, T0 + SCRAPE);

        assertThat(host.rate(ScrapedField.INFINIBAND_RECEIVE_ERRORS)).isEqualTo(3.0);
        assertThat(host.rate(ScrapedField.TCP_RETRANSMITS)).isNaN();
    }

    @Test
    void aScrapeArrivingInPartsNeverReadsAsAReset() {
        host.counter(ScrapedField.INFINIBAND_RECEIVE_ERRORS, "mlx5_0", "1", 1_000_000, T0);
        host.counter(ScrapedField.INFINIBAND_RECEIVE_ERRORS, "mlx5_1", "1", 1_000_000, T0);
        host.counter(ScrapedField.INFINIBAND_RECEIVE_ERRORS, "mlx5_0", "1", 1_000_015, T0 + SCRAPE);
        host.counter(ScrapedField.INFINIBAND_RECEIVE_ERRORS, "mlx5_1", "1", 1_000_015, T0 + SCRAPE);
        // the next scrape's first port only, so far
        host.counter(ScrapedField.INFINIBAND_RECEIVE_ERRORS, "mlx5_0", "1", 1_000_030, T0 + 2 * SCRAPE);

        assertThat(host.rate(ScrapedField.INFINIBAND_RECEIVE_ERRORS)).isEqualTo(2.0);
    }

    @Test
    void aSeriesThatWentDownStartedAgainFromZero() {
        host.counter(ScrapedField.TCP_RETRANSMITS, null, null, 90_000, T0);
        host.counter(ScrapedField.TCP_RETRANSMITS, null, null, 45, T0 + SCRAPE);

        assertThat(host.rate(ScrapedField.TCP_RETRANSMITS)).isEqualTo(3.0);
    }

    @Test
    void aDeviceNoLongerReportedDropsOutAndAnOlderScrapeIsPassedOver() {
        host.counter(ScrapedField.NETWORK_RECEIVE_ERRORS, "veth1", null, 0, T0);
        host.counter(ScrapedField.NETWORK_RECEIVE_ERRORS, "veth1", null, 1500, T0 + SCRAPE);
        host.counter(ScrapedField.NETWORK_RECEIVE_ERRORS, "eth0", null, 0, T0 + SCRAPE);
        host.counter(ScrapedField.NETWORK_RECEIVE_ERRORS, "eth0", null, 0, T0 + 2 * SCRAPE);
        host.counter(ScrapedField.NETWORK_RECEIVE_ERRORS, "eth0", null, 0, T0 + 3 * SCRAPE);
        host.counter(ScrapedField.NETWORK_RECEIVE_ERRORS, "eth0", null, 999, T0);

        assertThat(host.rate(ScrapedField.NETWORK_RECEIVE_ERRORS)).isZero();
    }
}
