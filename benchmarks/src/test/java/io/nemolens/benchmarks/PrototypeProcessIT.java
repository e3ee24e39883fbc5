package io.nemolens.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.testing.TestBroker;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;

/**
 * The standalone prototype (issue 35) on a real broker: the bench starts it in a JVM of its own, it drains its
 * queue, the bench reads its answers back, and a child that dies or fails makes the bench fail with what it left
 * on stderr instead of waiting.
 */
class PrototypeProcessIT {

    private static final int MESSAGES = 40;
    private static final int SPANS = 64;
    private static final IntFunction<byte[]> BODIES =
            i -> NemoLensRequests.spans(SPANS, BenchSettings.runId(16, i), (i / 16) % 8, i)
                    .toByteArray();

    @Test
    void aChildJvmDrainsItsQueueAndAnswersWithEverySpanPassAfterPass() throws Exception {
        try (Connection connection = TestBroker.get().connect();
                Channel ch = connection.createChannel()) {
            ch.confirmSelect();
            long pid;
            try (PrototypeBench prototype = PrototypeBench.start(amqpUri(), ch)) {
                pid = prototype.pid();
                assertThat(pid).isNotEqualTo(ProcessHandle.current().pid());
                assertThat(prototype.jvm().pid()).isEqualTo(pid);
                // -Xmx1g: the JVM reports a little less than the flag (a survivor space)
                assertThat(prototype.jvm().maxHeapMiB()).isBetween(900L, 1024L);
                assertThat(prototype.jvm().collectors()).isNotEmpty();
                assertThat(prototype.jvm().javaVersion()).isEqualTo(System.getProperty("java.version"));

                // three rounds at most, each of its own messages: all are consumed
                assertThat(prototype.warmUp("test prototype", BODIES, 1_000, 10, 3))
                        .isEqualTo(30);
                assertThat(ch.messageCount(prototype.queue())).isZero();

                for (int pass = 0; pass < 2; pass++) {
                    PrototypeBench.Run run = prototype.measure(BODIES, pass * MESSAGES, MESSAGES);
                    BarePrototype.Result r = run.result();
                    assertThat(r.messages()).isEqualTo(MESSAGES);
                    assertThat(r.spans()).isEqualTo((long) MESSAGES * SPANS);
                    assertThat(r.steadyAckNanos().length + r.finalAcks()).isEqualTo(MESSAGES);
                    // prefetch 100: one channel may get all 40 and the other no message, hence no file
                    assertThat(r.files()).isBetween(1, BarePrototype.CHANNELS);
                    assertThat(r.seconds()).isPositive();
                    assertThat(run.bytes()).isPositive();
                    assertThat(run.cpuSeconds()).isPositive();
                    assertThat(run.heap().baselineBytes()).isPositive();
                    assertThat(ch.messageCount(prototype.queue())).isZero();
                    // the same JVM from pass to pass: its JIT stays warm
                    assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive))
                            .contains(true);
                }
            }
            // closed: the child has ended
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                    .isFalse();
        }
    }

    @Test
    void aChildThatDiesFailsTheRunAtOnceWithItsExitStatus() throws Exception {
        try (Connection connection = TestBroker.get().connect();
                Channel ch = connection.createChannel()) {
            ch.confirmSelect();
            try (PrototypeBench prototype = PrototypeBench.start(amqpUri(), ch)) {
                ProcessHandle child = ProcessHandle.of(prototype.pid()).orElseThrow();
                child.destroyForcibly();
                child.onExit().get(30, TimeUnit.SECONDS);

                long t0 = System.nanoTime();
                assertThatThrownBy(() -> prototype.measure(BODIES, 0, MESSAGES))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("the standalone prototype's JVM (pid " + prototype.pid() + ")")
                        .hasMessageContaining("exited with status 137 (signal 9)");
                assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(30));
                // nobody consumed them
                assertThat(ch.messageCount(prototype.queue())).isEqualTo(MESSAGES);
            }
        }
    }

    @Test
    void aChildThatFailsEndsTheRunWithTheEndOfItsStderr() throws Exception {
        try (Connection connection = TestBroker.get().connect();
                Channel ch = connection.createChannel()) {
            ch.confirmSelect();
            try (PrototypeBench prototype = PrototypeBench.start(amqpUri(), ch)) {
                // its queue gone, the child's consumers cannot start
                ch.queueDelete(prototype.queue());

                assertThatThrownBy(() -> prototype.measure(BODIES, 0, 5))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("ended before it answered a measured run of 5 messages")
                        .hasMessageContaining("exited with status 1")
                        .hasMessageContaining("its stderr ended with:")
                        .hasMessageContaining("NOT_FOUND - no queue '" + prototype.queue() + "'");
                assertThat(ProcessHandle.of(prototype.pid())
                                .map(ProcessHandle::isAlive)
                                .orElse(false))
                        .isFalse();
            }
        }
    }

    private static String amqpUri() {
        ConnectionFactory f = TestBroker.get().connectionFactory();
        return String.format(
                Locale.ROOT,
                "amqp://%s:%s@%s:%d/%s",
                URLEncoder.encode(f.getUsername(), StandardCharsets.UTF_8),
                URLEncoder.encode(f.getPassword(), StandardCharsets.UTF_8),
                f.getHost(),
                f.getPort(),
                URLEncoder.encode(f.getVirtualHost(), StandardCharsets.UTF_8));
    }
}
