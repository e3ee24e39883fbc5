package io.nemolens.consumer.poison;

import com.rabbitmq.client.AMQP;

/**
 * Learns of every dead letter the broker confirmed: the poison tooling's index records it there. One
 * method; it must not throw (a failure to record is the recorder's to log, never the message's).
 */
@FunctionalInterface
public interface PoisonRecorder {

    /** A dead letter with these properties (our failure headers included) and this body is in the poison queue. */
    void poisoned(AMQP.BasicProperties properties, byte[] body);
}
