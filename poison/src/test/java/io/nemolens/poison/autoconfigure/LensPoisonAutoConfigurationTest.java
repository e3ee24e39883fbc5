package io.nemolens.poison.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.test.util.ReflectionTestUtils.getField;

import io.nemolens.consumer.config.LensConsumerAutoConfiguration;
import io.nemolens.consumer.config.LensPoisonProperties;
import io.nemolens.poison.PoisonIndex;
import io.nemolens.poison.PoisonIndexWriter;
import io.nemolens.poison.PoisonInspector;
import io.nemolens.poison.PoisonReindexer;
import io.nemolens.poison.PoisonReplayer;
import io.nemolens.poison.QueueDepthMonitor;
import io.nemolens.poison.ReplaySettings;
import io.nemolens.poison.actuate.PoisonEndpoint;
import io.nemolens.testing.Wiring;
import io.nemolens.testing.Wiring.Replaceable;
import io.nemolens.testing.WiringChecks;
import io.nemolens.topology.LensTopology;
import io.nemolens.topology.autoconfigure.LensTopologyAutoConfiguration;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * Wiring of the poison queue tools ({@code lens.poison.*} but the dead-letter settings, which
 * {@code LensConsumerAutoConfigurationTest} covers), without a broker: the queue-depth poll of a
 * running consumer polls a connection factory that cannot connect. The poll against a broker is
 * covered by {@code HealthIT}.
 */
class LensPoisonAutoConfigurationTest implements WiringChecks {

    private static final String EXPOSED = "management.endpoints.web.exposure.include=poison";

    private final ApplicationContextRunner runner = Wiring.brokerless(
                    LensTopologyAutoConfiguration.class, LensConsumerAutoConfiguration.class)
            .withConfiguration(
                    AutoConfigurations.of(LensPoisonAutoConfiguration.class, EndpointAutoConfiguration.class));

    @Override
    public ApplicationContextRunner runner() {
        return runner;
    }

    @Test
    void theCommandsContextHasInspectorAndReplayerButNoPoll() {
        runner.withPropertyValues("lens.consumer.enabled=false").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(PoisonInspector.class).hasSingleBean(PoisonReplayer.class);
            assertThat(context)
                    .doesNotHaveBean(QueueDepthMonitor.class)
                    .doesNotHaveBean(PoisonQueueHealthIndicator.class)
                    .doesNotHaveBean(PoisonIndex.class);
            // the commands' replays are recorded in the poison index all the same
            assertThat(context).hasSingleBean(PoisonIndexWriter.class);
            assertThat(getField(context.getBean(PoisonReplayer.class), "index"))
                    .isSameAs(context.getBean(PoisonIndexWriter.class));
            assertThat(context.getBean(LensPoisonProperties.class).maxReplays()).isEqualTo(5);
            // lens.poison.*'s defaults are the replay settings' own
            assertThat(context.getBean(PoisonReplayer.class).settings())
                    .isEqualTo(ReplaySettings.builder(new LensTopology()).build());
        });
    }

    @Test
    void aRunningConsumerPollsTheQueuesForTheirHealth() {
        runner.run(context -> assertThat(context)
                .hasNotFailed()
                .hasSingleBean(QueueDepthMonitor.class)
                .hasSingleBean(PoisonQueueHealthIndicator.class));
    }

    @Test
    void aRunningConsumerReadsThePoisonIndexUnlessItIsOff() {
        runner.run(context -> {
            assertThat(context).hasSingleBean(PoisonIndex.class).hasSingleBean(PoisonReindexer.class);
            assertThat(context.getBean(PoisonIndex.class).stream()).isEqualTo("nemo_lens-poison.index");
            assertThat(getField(context.getBean(PoisonIndexWriter.class), "maxBodyBytes"))
                    .isEqualTo(64 * 1024);
        });
        runner.withPropertyValues("lens.poison.index.enabled=false", "lens.poison.index.max-body=1KB")
                .run(context -> assertThat(context)
                        .hasNotFailed()
                        .doesNotHaveBean(PoisonIndexWriter.class)
                        .doesNotHaveBean(PoisonIndex.class)
                        .hasSingleBean(PoisonQueueHealthIndicator.class));
    }

    @Test
    void thePoisonEndpointExistsOnlyWhenExposed() {
        runner.run(context -> assertThat(context).doesNotHaveBean(PoisonEndpoint.class));
        runner.withPropertyValues(EXPOSED).run(context -> assertThat(context).hasSingleBean(PoisonEndpoint.class));
    }

    @Test
    void everyPoisonSettingReachesItsBean() {
        runner.withPropertyValues(
                        "lens.poison.confirm-timeout=3s",
                        "lens.poison.max-replays=2",
                        "lens.poison.inspect-limit=9",
                        "lens.poison.depth-poll-interval=1h",
                        "lens.poison.health.max-depth=4",
                        "lens.poison.health.max-age=2h",
                        "lens.topology.poison-queue=x-poison",
                        "lens.topology.parking-lot-queue=x-parked",
                        "lens.topology.delivery-limit=11")
                .run(context -> {
                    PoisonInspector inspector = context.getBean(PoisonInspector.class);
                    assertThat(inspector.queue()).isEqualTo("x-poison");
                    assertThat(getField(inspector, "inspectLimit")).isEqualTo(9);
                    assertThat(getField(inspector, "deliveryLimit")).isEqualTo(11);
                    ReplaySettings replay =
                            context.getBean(PoisonReplayer.class).settings();
                    assertThat(replay.topology().poisonQueueName()).isEqualTo("x-poison");
                    assertThat(replay.topology().parkingLotQueueName()).isEqualTo("x-parked");
                    assertThat(replay.topology().deliveryLimit()).isEqualTo(11);
                    assertThat(replay.maxReplays()).isEqualTo(2);
                    assertThat(replay.inspectLimit()).isEqualTo(9);
                    assertThat(replay.confirmTimeout()).isEqualTo(Duration.ofSeconds(3));
                    QueueDepthMonitor monitor = context.getBean(QueueDepthMonitor.class);
                    assertThat(getField(monitor, "period")).isEqualTo(Duration.ofHours(1));
                    assertThat(monitor.depth("parking-lot").queue()).isEqualTo("x-parked");
                    assertThat(context.getBean(PoisonQueueHealthIndicator.class)
                                    .health()
                                    .getDetails())
                            .containsEntry("queue", "x-poison")
                            .containsEntry("maxDepth", 4L)
                            .containsEntry("maxAge", "PT2H");
                });
    }

    @Test
    void theQueuesAreAnApplicationsOwnTopologys() {
        LensTopology mine =
                LensTopology.builder().queue("mine").poisonQueue("mine-poison").build();
        runner.withBean(LensTopology.class, () -> mine).run(context -> {
            assertThat(context.getBean(PoisonInspector.class).queue()).isEqualTo("mine-poison");
            assertThat(context.getBean(PoisonReplayer.class).settings().topology())
                    .isSameAs(mine);
            assertThat(context.getBean(QueueDepthMonitor.class)
                            .depth("processing")
                            .queue())
                    .isEqualTo("mine");
        });
    }

    static Stream<Replaceable> replaceables() {
        return Stream.of(
                Replaceable.byType("poisonInspector", PoisonInspector.class),
                Replaceable.byType("poisonReplayer", PoisonReplayer.class),
                Replaceable.byType("poisonEndpoint", PoisonEndpoint.class, EXPOSED),
                Replaceable.byType("lensQueueDepthMonitor", QueueDepthMonitor.class),
                Replaceable.byType("poisonIndex", PoisonIndex.class),
                Replaceable.byType("poisonReindexer", PoisonReindexer.class),
                Replaceable.byName("lensPoisonHealthIndicator", HealthIndicator.class));
    }

    static Stream<String> invalidSettings() {
        return Stream.of(
                "lens.poison.max-replays=-1", "lens.poison.inspect-limit=0", "lens.poison.depth-poll-interval=often");
    }

    @Test
    void anInvalidHealthThresholdFailsTheStartNamingIt() {
        Wiring.assertRejected(runner, "lens.poison.health.max-depth=-1", "'lens.poison'", "'health.maxDepth'");
    }
}
