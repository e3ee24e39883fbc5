package io.nemolens.poison;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.nemolens.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.rabbit.connection.Connection;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;

/** A depth as of an instant: the last poll's when it asked later, else one passive declare on the caller's thread. */
class QueueDepthMonitorTest {

    private final MutableClock clock = MutableClock.at("2026-11-03T10:00:00Z");
    private final Channel channel = mock(Channel.class);
    private final AMQP.Queue.DeclareOk declared = mock(AMQP.Queue.DeclareOk.class);
    private QueueDepthMonitor monitor;

    @BeforeEach
    void broker() throws Exception {
        ConnectionFactory factory = mock(ConnectionFactory.class);
        Connection connection = mock(Connection.class);
        com.rabbitmq.client.Connection delegate = mock(com.rabbitmq.client.Connection.class);
        when(factory.createConnection()).thenReturn(connection);
        when(connection.getDelegate()).thenReturn(delegate);
        when(delegate.createChannel()).thenReturn(channel);
        when(channel.queueDeclarePassive(anyString())).thenReturn(declared);
        monitor = new QueueDepthMonitor(
                factory, Map.of("poison", "q-poison"), Duration.ofSeconds(15), clock, new SimpleMeterRegistry());
    }

    @Test
    void aPollThatAskedAfterTheInstantIsAnswerEnough() throws Exception {
        when(declared.getMessageCount()).thenReturn(7);
        monitor.poll();
        Instant changed = clock.instant().minusMillis(1);

        QueueDepthMonitor.Depth depth = monitor.depthAsOf("poison", changed);

        assertThat(depth).isNotNull();
        assertThat(depth.depth()).isEqualTo(7);
        verify(channel, times(1)).queueDeclarePassive("q-poison");
    }

    @Test
    void aPollFromBeforeTheInstantIsReadAgainNowAndTheGaugeHasTheNewDepth() throws Exception {
        when(declared.getMessageCount()).thenReturn(10);
        monitor.poll();
        clock.advance(Duration.ofSeconds(3));
        Instant changed = clock.instant(); // e.g. the index lost three messages just now
        clock.advance(Duration.ofMillis(5));
        when(declared.getMessageCount()).thenReturn(7);

        QueueDepthMonitor.Depth depth = monitor.depthAsOf("poison", changed);

        assertThat(depth).isNotNull();
        assertThat(depth.depth()).isEqualTo(7);
        assertThat(depth.polledAt()).isAfter(changed);
        assertThat(monitor.depth("poison")).isEqualTo(depth);
        verify(channel, times(2)).queueDeclarePassive("q-poison");
        // asked again at once: that read is recent enough
        assertThat(monitor.depthAsOf("poison", changed)).isEqualTo(depth);
        verify(channel, times(2)).queueDeclarePassive("q-poison");
    }

    @Test
    void aPollAtTheVeryInstantIsNotTakenForALaterOne() throws Exception {
        when(declared.getMessageCount()).thenReturn(4);
        monitor.poll();
        monitor.depthAsOf("poison", clock.instant());
        verify(channel, times(2)).queueDeclarePassive("q-poison");
    }

    @Test
    void aRoleItDoesNotPollHasNoDepth() throws Exception {
        assertThat(monitor.depthAsOf("parking-lot", clock.instant())).isNull();
        verify(channel, never()).queueDeclarePassive(anyString());
    }
}
