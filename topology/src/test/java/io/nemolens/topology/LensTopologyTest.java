package io.nemolens.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.entry;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.Binding;
import org.springframework.amqp.core.Declarable;
import org.springframework.amqp.core.DirectExchange;
import org.springframework.amqp.core.ExchangeTypes;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.core.TopicExchange;

class LensTopologyTest {

    private final LensTopology topology = new LensTopology();

    @Test
    void defaultNames() {
        assertThat(this.topology.exchangeName()).isEqualTo("nemo_lens.otel.raw");
        assertThat(this.topology.deadLetterExchangeName()).isEqualTo("nemo_lens.otel.dead");
        assertThat(this.topology.queueName()).isEqualTo("nemo_lens-processing");
        assertThat(this.topology.poisonQueueName()).isEqualTo("nemo_lens-poison");
        assertThat(this.topology.parkingLotQueueName()).isEqualTo("nemo_lens-poison.parking-lot");
        assertThat(this.topology.deliveryLimit()).isEqualTo(1000);
    }

    @Test
    void exchangeIsDurableTopic() {
        TopicExchange exchange = this.topology.exchange();
        assertThat(exchange.getName()).isEqualTo(LensTopology.DEFAULT_EXCHANGE);
        assertThat(exchange.getType()).isEqualTo(ExchangeTypes.TOPIC);
        assertThat(exchange.isDurable()).isTrue();
        assertThat(exchange.isAutoDelete()).isFalse();
        assertThat(exchange.isInternal()).isFalse();
        assertThat(exchange.getArguments()).isEmpty();
    }

    @Test
    void theDeadLetterExchangeIsADurableDirectExchangeThatRoutesByQueueName() {
        DirectExchange exchange = this.topology.deadLetterExchange();
        assertThat(exchange.getName()).isEqualTo(LensTopology.DEFAULT_DEAD_LETTER_EXCHANGE);
        assertThat(exchange.getType()).isEqualTo(ExchangeTypes.DIRECT);
        assertThat(exchange.isDurable()).isTrue();
        assertThat(exchange.isAutoDelete()).isFalse();
        assertThat(exchange.isInternal()).isFalse();
        assertThat(this.topology.deadLetterBindings())
                .allSatisfy(binding -> {
                    assertThat(binding.getExchange()).isEqualTo("nemo_lens.otel.dead");
                    assertThat(binding.getDestinationType()).isEqualTo(Binding.DestinationType.QUEUE);
                    assertThat(binding.getRoutingKey()).isEqualTo(binding.getDestination());
                })
                .extracting(Binding::getDestination)
                .containsExactly("nemo_lens-poison", "nemo_lens-poison.parking-lot", "nemo_lens-poison.index");
    }

    @Test
    void processingQueueDeadLettersAtLeastOnceToPoisonQueue() {
        Queue queue = this.topology.processingQueue();
        assertThat(queue.getName()).isEqualTo(LensTopology.DEFAULT_QUEUE);
        assertThat(queue.isDurable()).isTrue();
        assertThat(queue.isExclusive()).isFalse();
        assertThat(queue.isAutoDelete()).isFalse();
        assertThat(this.topology.processingQueueArguments())
                .containsExactly(
                        entry("x-queue-type", "quorum"),
                        entry("x-dead-letter-exchange", "nemo_lens.otel.dead"),
                        entry("x-dead-letter-routing-key", "nemo_lens-poison"),
                        entry("x-dead-letter-strategy", "at-least-once"),
                        entry("x-overflow", "reject-publish"),
                        entry("x-delivery-limit", 1000));
        assertThat(queue.getArguments()).isEqualTo(this.topology.processingQueueArguments());
    }

    @Test
    void poisonAndParkingLotQueuesAreQuorumWithoutDeadLettering() {
        for (Queue queue : List.of(this.topology.poisonQueue(), this.topology.parkingLotQueue())) {
            assertThat(queue.isDurable()).isTrue();
            assertThat(queue.isExclusive()).isFalse();
            assertThat(queue.isAutoDelete()).isFalse();
            assertThat(queue.getArguments())
                    .containsOnly(entry("x-queue-type", "quorum"), entry("x-delivery-limit", 1000));
        }
        assertThat(this.topology.poisonQueue().getName()).isEqualTo("nemo_lens-poison");
        assertThat(this.topology.parkingLotQueue().getName()).isEqualTo("nemo_lens-poison.parking-lot");
        assertThat(this.topology.poisonQueueArguments())
                .isEqualTo(this.topology.poisonQueue().getArguments());
        assertThat(this.topology.parkingLotQueueArguments())
                .isEqualTo(this.topology.parkingLotQueue().getArguments());
    }

    @Test
    void bindingRoutesEverythingToProcessingQueue() {
        Binding binding = this.topology.binding();
        assertThat(binding.getExchange()).isEqualTo("nemo_lens.otel.raw");
        assertThat(binding.getDestination()).isEqualTo("nemo_lens-processing");
        assertThat(binding.getDestinationType()).isEqualTo(Binding.DestinationType.QUEUE);
        assertThat(binding.getRoutingKey()).isEqualTo("#");
        assertThat(binding.getArguments()).isEmpty();
    }

    @Test
    void declarablesListExchangeQueuesThenBinding() {
        List<Declarable> declarables = List.copyOf(this.topology.declarables().getDeclarables());
        assertThat(declarables).hasSize(10);
        assertThat(declarables.get(0)).isInstanceOf(TopicExchange.class);
        assertThat(declarables.get(1)).isInstanceOf(DirectExchange.class);
        assertThat(declarables.subList(2, 6))
                .extracting((d) -> ((Queue) d).getName())
                .containsExactly(
                        "nemo_lens-poison",
                        "nemo_lens-poison.parking-lot",
                        "nemo_lens-poison.index",
                        "nemo_lens-processing");
        assertThat(declarables.subList(6, 10))
                .extracting((d) -> ((Binding) d).getExchange())
                .containsExactly(
                        "nemo_lens.otel.raw", "nemo_lens.otel.dead", "nemo_lens.otel.dead", "nemo_lens.otel.dead");
    }

    @Test
    void thePoisonIndexIsAStreamNamedAfterThePoisonQueue() {
        Queue index = LensTopology.builder().poisonQueue("dead").build().poisonIndexStream();
        assertThat(index.getName()).isEqualTo("dead.index");
        assertThat(index.isDurable()).isTrue();
        assertThat(index.getArguments())
                .containsOnly(Map.entry("x-queue-type", "stream"), Map.entry("x-max-age", "30D"));
    }

    @Test
    void argumentMapsAreUnmodifiableButQueuesGetTheirOwnCopy() {
        Map<String, Object> arguments = this.topology.processingQueueArguments();
        assertThatIllegalArgumentException().isThrownBy(() -> {
            try {
                arguments.put("x", 1);
            } catch (UnsupportedOperationException ex) {
                throw new IllegalArgumentException(ex);
            }
        });
        Queue queue = this.topology.processingQueue();
        queue.addArgument("x-extra", 1);
        assertThat(this.topology.processingQueue().getArguments()).doesNotContainKey("x-extra");
    }

    @Test
    void builderDefaultsParkingLotToPoisonNamePlusSuffix() {
        LensTopology custom = LensTopology.builder()
                .exchange("ex")
                .deadLetterExchange("dlx")
                .queue("q")
                .poisonQueue("dead")
                .deliveryLimit(7)
                .build();
        assertThat(custom.exchangeName()).isEqualTo("ex");
        assertThat(custom.deadLetterExchangeName()).isEqualTo("dlx");
        assertThat(custom.queueName()).isEqualTo("q");
        assertThat(custom.poisonQueueName()).isEqualTo("dead");
        assertThat(custom.parkingLotQueueName()).isEqualTo("dead.parking-lot");
        assertThat(custom.deliveryLimit()).isEqualTo(7);
        assertThat(custom.processingQueueArguments())
                .containsEntry("x-dead-letter-exchange", "dlx")
                .containsEntry("x-dead-letter-routing-key", "dead")
                .containsEntry("x-delivery-limit", 7);
        assertThat(custom.binding().getExchange()).isEqualTo("ex");
        assertThat(custom.binding().getDestination()).isEqualTo("q");
    }

    @Test
    void builderWithNullsGivesDefaults() {
        LensTopology built = LensTopology.builder()
                .exchange(null)
                .deadLetterExchange(null)
                .queue(null)
                .poisonQueue(null)
                .parkingLotQueue(null)
                .deliveryLimit(null)
                .build();
        assertThat(built).isEqualTo(this.topology).hasSameHashCodeAs(this.topology);
        assertThat(built.toString()).contains("nemo_lens-processing", "1000");
    }

    @Test
    void explicitParkingLotNameWins() {
        assertThat(LensTopology.builder().parkingLotQueue("parked").build().parkingLotQueueName())
                .isEqualTo("parked");
    }

    @Test
    void rejectsBadNamesAndLimits() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LensTopology.builder().queue(" ").build())
                .withMessageContaining("queue name must not be blank");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LensTopology.builder().exchange("amq.topic").build())
                .withMessageContaining("reserved prefix");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LensTopology.builder().queue("x".repeat(256)).build())
                .withMessageContaining("255 bytes");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LensTopology.builder()
                        .poisonQueue(LensTopology.DEFAULT_QUEUE)
                        .build())
                .withMessageContaining("three different names");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LensTopology.builder()
                        .deadLetterExchange(LensTopology.DEFAULT_EXCHANGE)
                        .build())
                .withMessageContaining("two different names");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LensTopology.builder().deadLetterExchange("").build())
                .withMessageContaining("dead-letter exchange name must not be blank");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> LensTopology.builder().deliveryLimit(0).build())
                .withMessageContaining("at least 1");
    }
}
