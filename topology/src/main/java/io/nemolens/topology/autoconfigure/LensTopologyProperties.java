package io.nemolens.topology.autoconfigure;

import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * The broker names this consumer uses ({@code lens.topology.*}). They must agree with the
 * collector's exchange and with {@code observability/rabbitmq/definitions.json}.
 *
 * @param exchange the topic exchange the collector publishes to
 * @param deadLetterExchange the direct exchange through which messages reach the poison queue, the parking lot and the poison index (each bound with its own name); the processing queue dead-letters through it too, so a broker user needs no write permission on the default exchange
 * @param queue the queue this consumer reads, bound to the exchange with {@code #}
 * @param poisonQueue where messages that cannot be processed go, with their reason
 * @param parkingLotQueue where poison messages replayed too often go
 * @param deliveryLimit the {@code x-delivery-limit} of the three quorum queues: after this many redeliveries (consumer crashes, lost connections) the broker dead-letters a message of the processing queue to the poison queue, and drops one of the poison or parking-lot queue (which have no dead-letter target)
 * @param declare whether to declare the exchange, queues and binding at start-up (idempotent); {@code false} for brokers where the app may not declare, in which case their existence is checked and missing ones are reported
 */
@ConfigurationProperties("lens.topology")
@Validated
public record LensTopologyProperties(
        @DefaultValue("nemo_lens.otel.raw") @NotBlank String exchange,
        @DefaultValue("nemo_lens.otel.dead") @NotBlank String deadLetterExchange,
        @DefaultValue("nemo_lens-processing") @NotBlank String queue,
        @DefaultValue("nemo_lens-poison") @NotBlank String poisonQueue,

        @DefaultValue("nemo_lens-poison.parking-lot") @NotBlank
        String parkingLotQueue,

        @DefaultValue("1000") @Min(1) int deliveryLimit,
        @DefaultValue("true") boolean declare) {}
