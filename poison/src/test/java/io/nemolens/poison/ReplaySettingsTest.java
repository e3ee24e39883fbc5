package io.nemolens.poison;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.nemolens.topology.LensTopology;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ReplaySettingsTest {

    private final LensTopology topology =
            LensTopology.builder().poisonQueue("p").parkingLotQueue("parked").build();

    @Test
    void theBuilderStartsFromTheDefaultsOfLensPoison() {
        ReplaySettings settings = ReplaySettings.builder(topology).build();
        assertThat(settings.topology()).isSameAs(topology);
        assertThat(settings.maxReplays()).isEqualTo(5);
        assertThat(settings.inspectLimit()).isEqualTo(50_000);
        assertThat(settings.confirmTimeout()).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void eachLimitIsSetByName() {
        ReplaySettings settings = ReplaySettings.builder(topology)
                .maxReplays(0)
                .inspectLimit(7)
                .confirmTimeout(Duration.ofMillis(250))
                .build();
        assertThat(settings).isEqualTo(new ReplaySettings(topology, 0, 7, Duration.ofMillis(250)));
    }

    @Test
    void limitsOutOfRangeAreRefusedAtBuild() {
        assertThatIllegalArgumentException()
                .isThrownBy(
                        () -> ReplaySettings.builder(topology).maxReplays(-1).build())
                .withMessageContaining("maxReplays");
        assertThatIllegalArgumentException()
                .isThrownBy(
                        () -> ReplaySettings.builder(topology).inspectLimit(0).build())
                .withMessageContaining("inspectLimit");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> ReplaySettings.builder(topology)
                        .confirmTimeout(Duration.ZERO)
                        .build())
                .withMessageContaining("confirmTimeout");
    }
}
