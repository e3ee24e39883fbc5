package io.nemolens.consumer.config;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.Consumer;
import com.rabbitmq.client.ExceptionHandler;
import com.rabbitmq.client.TopologyRecoveryException;
import io.nemolens.consumer.error.OutOfMemoryHalt;

/**
 * The AMQP client's exception handler, with one change: an {@link OutOfMemoryError} halts the process
 * ({@link OutOfMemoryHalt}). The client catches every {@code Throwable} of its connection thread (where it
 * assembles message bodies) and of its consumer callbacks, reports it here, closes the connection and lets
 * the application reconnect: after an out-of-memory error that is a loop of reconnects and redeliveries
 * while health stays UP. Everything else goes to the handler the client had.
 */
final class HaltingExceptionHandler implements ExceptionHandler {

    private final ExceptionHandler delegate;

    HaltingExceptionHandler(ExceptionHandler delegate) {
        this.delegate = delegate;
    }

    @Override
    public void handleUnexpectedConnectionDriverException(Connection conn, Throwable exception) {
        passOn(exception, "the AMQP connection thread").handleUnexpectedConnectionDriverException(conn, exception);
    }

    @Override
    public void handleReturnListenerException(Channel channel, Throwable exception) {
        passOn(exception, "an AMQP return listener").handleReturnListenerException(channel, exception);
    }

    @Override
    public void handleConfirmListenerException(Channel channel, Throwable exception) {
        passOn(exception, "an AMQP confirm listener").handleConfirmListenerException(channel, exception);
    }

    @Override
    public void handleBlockedListenerException(Connection connection, Throwable exception) {
        passOn(exception, "an AMQP blocked listener").handleBlockedListenerException(connection, exception);
    }

    @Override
    public void handleConsumerException(
            Channel channel, Throwable exception, Consumer consumer, String consumerTag, String methodName) {
        passOn(exception, "an AMQP consumer callback")
                .handleConsumerException(channel, exception, consumer, consumerTag, methodName);
    }

    @Override
    public void handleConnectionRecoveryException(Connection conn, Throwable exception) {
        passOn(exception, "AMQP connection recovery").handleConnectionRecoveryException(conn, exception);
    }

    @Override
    public void handleChannelRecoveryException(Channel ch, Throwable exception) {
        passOn(exception, "AMQP channel recovery").handleChannelRecoveryException(ch, exception);
    }

    @Override
    public void handleTopologyRecoveryException(Connection conn, Channel ch, TopologyRecoveryException exception) {
        passOn(exception, "AMQP topology recovery").handleTopologyRecoveryException(conn, ch, exception);
    }

    /**
     * Halts the process when {@code exception} is (or was caused by) an {@link OutOfMemoryError}; otherwise
     * returns the client's own handler, to pass the failure on to. Allocates nothing before the check.
     *
     * @param where what caught it, for the log line: a constant
     */
    private ExceptionHandler passOn(Throwable exception, String where) {
        OutOfMemoryHalt.haltIfOutOfMemory(exception, where);
        return delegate;
    }
}
