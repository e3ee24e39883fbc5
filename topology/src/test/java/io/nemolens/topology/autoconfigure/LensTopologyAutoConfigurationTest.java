package io.nemolens.topology.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.testing.Wiring;
import io.nemolens.testing.Wiring.Replaceable;
import io.nemolens.testing.WiringChecks;
import io.nemolens.topology.LensTopology;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.boot.ApplicationRunner;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/** Wiring of {@code lens.topology.*}, without a broker (the check runner is created, never run). */
class LensTopologyAutoConfigurationTest implements WiringChecks {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(LensTopologyAutoConfiguration.class))
            .withBean(ConnectionFactory.class, Wiring::noBroker);

    @Override
    public ApplicationContextRunner runner() {
        return runner;
    }

    @Test
    void byDefaultTheDefaultTopologyIsDeclared() {
        runner.run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean("lensTopologyCheck");
            assertThat(context.getBean(LensTopology.class).queueName()).isEqualTo(LensTopology.DEFAULT_QUEUE);
            assertThat(declaredQueues(context))
                    .containsExactlyInAnyOrder(
                            LensTopology.DEFAULT_QUEUE,
                            LensTopology.DEFAULT_POISON_QUEUE,
                            LensTopology.DEFAULT_PARKING_LOT_QUEUE,
                            LensTopology.DEFAULT_POISON_QUEUE + LensTopology.POISON_INDEX_SUFFIX);
        });
    }

    @Test
    void everySettingReachesTheTopologyAndItsDeclarables() {
        runner.withPropertyValues(
                        "lens.topology.exchange=x.raw",
                        "lens.topology.dead-letter-exchange=x.dead",
                        "lens.topology.queue=x-processing",
                        "lens.topology.poison-queue=x-poison",
                        "lens.topology.parking-lot-queue=x-parked",
                        "lens.topology.delivery-limit=7")
                .run(context -> {
                    LensTopology topology = context.getBean(LensTopology.class);
                    assertThat(topology.exchangeName()).isEqualTo("x.raw");
                    assertThat(topology.deadLetterExchangeName()).isEqualTo("x.dead");
                    assertThat(topology.processingQueueArguments()).containsEntry("x-dead-letter-exchange", "x.dead");
                    assertThat(topology.queueName()).isEqualTo("x-processing");
                    assertThat(topology.poisonQueueName()).isEqualTo("x-poison");
                    assertThat(topology.parkingLotQueueName()).isEqualTo("x-parked");
                    assertThat(topology.deliveryLimit()).isEqualTo(7);
                    assertThat(declaredQueues(context))
                            .containsExactlyInAnyOrder("x-processing", "x-poison", "x-parked", "x-poison.index");
                });
    }

    @Test
    void withoutDeclaringTheTopologyIsOnlyChecked() {
        runner.withPropertyValues("lens.topology.declare=false").run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(Declarables.class);
            assertThat(context).getBean("lensTopologyCheck").isInstanceOf(ApplicationRunner.class);
        });
    }

    static Stream<Replaceable> replaceables() {
        return Stream.of(
                Replaceable.byType("lensTopology", LensTopology.class),
                Replaceable.byName("lensDeclarables", Declarables.class),
                Replaceable.byName("lensTopologyCheck", ApplicationRunner.class, "lens.topology.declare=false"));
    }

    @Test
    void theDeclarablesFollowAnApplicationsOwnTopology() {
        LensTopology mine = LensTopology.builder().queue("mine").build();
        runner.withBean(LensTopology.class, () -> mine)
                .run(context -> assertThat(declaredQueues(context)).contains("mine"));
    }

    static Stream<String> invalidSettings() {
        return Stream.of("lens.topology.delivery-limit=0", "lens.topology.queue= ", "lens.topology.exchange=");
    }

    private static List<String> declaredQueues(ApplicationContext context) {
        return context.getBean("lensDeclarables", Declarables.class).getDeclarablesByType(Queue.class).stream()
                .map(Queue::getName)
                .toList();
    }
}
