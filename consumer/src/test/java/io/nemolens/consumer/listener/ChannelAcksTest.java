package io.nemolens.consumer.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

import com.rabbitmq.client.Channel;
import io.nemolens.consumer.listener.ChannelAcks.Decision;
import io.nemolens.consumer.listener.ChannelAcks.Delivery;
import io.nemolens.consumer.listener.ChannelAcks.Frame;
import io.nemolens.consumer.listener.ChannelAcks.Taken;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Which frames one channel's decisions become: the decided prefix coalesced into one multiple ack, never covering
 * an undecided delivery; requeues and rejects alone and in order; acks behind an undecided delivery alone once they
 * have waited the linger.
 */
class ChannelAcksTest {

    private static final long LINGER = TimeUnit.MILLISECONDS.toNanos(10);

    private final ChannelAcks acks = new ChannelAcks(mock(Channel.class), LINGER);
    private final List<Delivery> deliveries = new ArrayList<>();
    private long now = 1_000_000_000L;

    private void deliver(int count) {
        for (int i = 0; i < count; i++) {
            deliveries.add(acks.register(deliveries.size() + 1));
        }
    }

    private void decide(int tag, Decision decision) {
        acks.decide(deliveries.get(tag - 1), decision, now);
    }

    private void ack(int from, int to) {
        for (int tag = from; tag <= to; tag++) {
            decide(tag, Decision.ACK);
        }
    }

    private List<Frame> take() {
        return acks.take(now).frames();
    }

    @Test
    void aDecidedPrefixIsOneMultipleAck() {
        deliver(50);
        ack(1, 50);
        assertThat(take()).containsExactly(new Frame(Decision.ACK, 50, 50));
        assertThat(take()).isEmpty();
        assertThat(acks.unsettled()).isZero();
    }

    @Test
    void aLoneAckIsNotMultiple() {
        deliver(1);
        ack(1, 1);
        List<Frame> frames = take();
        assertThat(frames).containsExactly(new Frame(Decision.ACK, 1, 1));
        assertThat(frames.get(0).multiple()).isFalse();
    }

    @Test
    void anUndecidedDeliveryIsNeverCovered() {
        deliver(10);
        ack(1, 3);
        ack(5, 10);
        assertThat(take())
                .as("only the prefix before the undecided delivery 4")
                .containsExactly(new Frame(Decision.ACK, 3, 3));
        assertThat(acks.unsettled()).isEqualTo(7);

        decide(4, Decision.ACK);
        assertThat(take()).containsExactly(new Frame(Decision.ACK, 10, 7));
        assertThat(acks.unsettled()).isZero();
    }

    @Test
    void requeuesAndRejectsSplitTheRunAndKeepTheirOrder() {
        deliver(8);
        ack(1, 2);
        decide(3, Decision.REQUEUE);
        ack(4, 5);
        decide(6, Decision.REJECT);
        ack(7, 8);
        assertThat(take())
                .containsExactly(
                        new Frame(Decision.ACK, 2, 2),
                        new Frame(Decision.REQUEUE, 3, 1),
                        new Frame(Decision.ACK, 5, 2),
                        new Frame(Decision.REJECT, 6, 1),
                        new Frame(Decision.ACK, 8, 2));
    }

    @Test
    void aRequeueBehindAnUndecidedDeliveryGoesAtOnceAndIsNotSentTwice() {
        deliver(3);
        decide(2, Decision.REQUEUE);
        assertThat(take()).containsExactly(new Frame(Decision.REQUEUE, 2, 1));
        assertThat(take()).isEmpty();
        ack(1, 1);
        ack(3, 3);
        assertThat(take())
                .as("delivery 2 is settled already; an ack of 3 with multiple covers 1 and 3 only")
                .containsExactly(new Frame(Decision.ACK, 3, 2));
    }

    @Test
    void anAckBehindAnUndecidedDeliveryWaitsTheLingerThenGoesAlone() {
        deliver(3);
        ack(2, 3);
        Taken first = acks.take(now);
        assertThat(first.frames()).isEmpty();
        assertThat(first.waiting()).isTrue();
        assertThat(first.nextNanos()).isEqualTo(now + LINGER);

        now += LINGER - 1;
        assertThat(take()).isEmpty();
        now += 1;
        assertThat(take())
                .as("each alone: a multiple ack would cover delivery 1")
                .containsExactly(new Frame(Decision.ACK, 2, 1), new Frame(Decision.ACK, 3, 1));
        assertThat(acks.take(now).waiting()).isFalse();
        assertThat(acks.unsettled())
                .as("what was settled alone is no longer held behind the undecided delivery")
                .isEqualTo(1);

        decide(1, Decision.ACK);
        assertThat(take()).containsExactly(new Frame(Decision.ACK, 1, 1));
        assertThat(acks.unsettled()).isZero();
    }

    @Test
    void onlyTheFirstDecisionSinceATakeAsksForAFlush() {
        deliver(3);
        assertThat(acks.decide(deliveries.get(0), Decision.ACK, now)).isTrue();
        assertThat(acks.decide(deliveries.get(1), Decision.ACK, now)).isFalse();
        take();
        assertThat(acks.decide(deliveries.get(2), Decision.ACK, now)).isTrue();
    }

    @Test
    void aTimerIsSetOnceForTheEarliestDueTime() {
        assertThat(acks.timerFor(100)).isTrue();
        assertThat(acks.timerFor(150)).as("one is set for earlier").isFalse();
        assertThat(acks.timerFor(50)).as("earlier than the one set").isTrue();
        acks.timerFired(100);
        assertThat(acks.timerFor(80)).as("the timer for 50 is still set").isFalse();
        acks.timerFired(50);
        assertThat(acks.timerFor(80)).isTrue();
    }
}
