package io.nemolens.topology;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ShutdownSignalException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeoutException;
import org.springframework.amqp.AmqpException;
import org.springframework.amqp.rabbit.connection.Connection;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;

/**
 * Checks, without creating anything, that the exchange and queues of a {@link LensTopology}
 * exist on the broker; for start-up when the application is told not to declare them
 * ({@code lens.topology.declare=false}).
 *
 * <p>Each entity is checked with a passive declare ({@code exchange.declare} /
 * {@code queue.declare} with {@code passive=true}) on a channel of its own: a failed passive
 * declare closes its channel, so one missing queue must not hide the next.
 *
 * <p>What AMQP 0-9-1 cannot tell, this check does not claim to know: it does not see whether
 * the exchange is a topic exchange, whether a queue has the expected arguments (quorum type,
 * dead-lettering), nor whether the binding exists. A passive declare also needs no configure
 * permission, so the check works for a user with read and write permissions only.
 *
 * <p>Thread-safe if the connection factory is.
 */
public final class TopologyVerifier {

    private final ConnectionFactory connectionFactory;

    /**
     * @param connectionFactory where to open the connection and channels the checks use
     */
    public TopologyVerifier(ConnectionFactory connectionFactory) {
        this.connectionFactory = Objects.requireNonNull(connectionFactory, "connectionFactory");
    }

    /**
     * Checks that the exchange, the dead-letter exchange, the processing queue, the poison queue,
     * the parking-lot queue and the poison index stream of the topology exist.
     * @param topology what should exist
     * @return one readable sentence per missing or inaccessible entity, in the order exchange,
     * dead-letter exchange, queue, poison queue, parking-lot queue, poison index stream; empty when
     * everything exists
     * @throws AmqpException if no connection or channel can be opened (the broker is down or
     * refuses the credentials): that is not a topology problem
     */
    public List<String> findProblems(LensTopology topology) {
        Objects.requireNonNull(topology, "topology");
        List<String> problems = new ArrayList<>();
        Connection connection = this.connectionFactory.createConnection();
        try {
            check(
                    connection,
                    "exchange",
                    topology.exchangeName(),
                    problems,
                    (channel) -> channel.exchangeDeclarePassive(topology.exchangeName()));
            check(
                    connection,
                    "dead-letter exchange",
                    topology.deadLetterExchangeName(),
                    problems,
                    (channel) -> channel.exchangeDeclarePassive(topology.deadLetterExchangeName()));
            checkQueue(connection, "queue", topology.queueName(), problems);
            checkQueue(connection, "poison queue", topology.poisonQueueName(), problems);
            checkQueue(connection, "parking-lot queue", topology.parkingLotQueueName(), problems);
            checkQueue(connection, "poison index stream", topology.poisonIndexName(), problems);
        } finally {
            connection.close();
        }
        return List.copyOf(problems);
    }

    private static void checkQueue(Connection connection, String role, String name, List<String> problems) {
        check(connection, role, name, problems, (channel) -> channel.queueDeclarePassive(name));
    }

    private static void check(
            Connection connection, String role, String name, List<String> problems, PassiveDeclare declare) {
        Channel channel = connection.createChannel(false);
        try {
            declare.run(channel);
        } catch (IOException | ShutdownSignalException ex) {
            problems.add(describe(role, name, ex));
        } finally {
            closeQuietly(channel);
        }
    }

    private static String describe(String role, String name, Exception ex) {
        ShutdownSignalException shutdown = (ex instanceof ShutdownSignalException signal)
                ? signal
                : (ex.getCause() instanceof ShutdownSignalException signal) ? signal : null;
        String what = role + " '" + name + "'";
        if (shutdown != null && shutdown.getReason() instanceof com.rabbitmq.client.AMQP.Channel.Close close) {
            return switch (close.getReplyCode()) {
                case 404 -> what + " does not exist (" + close.getReplyText() + ")";
                case 403 -> what + " is not accessible to this user (" + close.getReplyText() + ")";
                default -> what + " could not be checked (" + close.getReplyText() + ")";
            };
        }
        return what + " could not be checked (" + ex + ")";
    }

    private static void closeQuietly(Channel channel) {
        try {
            // always close: a caching connection factory's channel proxy releases its slot here
            channel.close();
        } catch (IOException | TimeoutException | ShutdownSignalException ex) {
            // the broker closed it first: nothing to release
        }
    }

    @FunctionalInterface
    private interface PassiveDeclare {

        void run(Channel channel) throws IOException;
    }
}
