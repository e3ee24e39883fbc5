/**
 * The RabbitMQ topology of NeMo Lens: {@link io.nemolens.topology.LensTopology} holds the names
 * and queue arguments and builds the Spring AMQP declarables;
 * {@link io.nemolens.topology.TopologyVerifier} checks that a broker has them when the
 * application does not declare them itself. No Spring Boot types here.
 */
@NullMarked
package io.nemolens.topology;

import org.jspecify.annotations.NullMarked;
