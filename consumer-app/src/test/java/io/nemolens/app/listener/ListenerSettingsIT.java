package io.nemolens.app.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.nemolens.app.testing.Service;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.TestBroker;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Spring's own {@code spring.rabbitmq.listener.simple.*} settings reach the broker, read from the broker's own
 * list of the queue's consumers; ours win where both are set; one that cannot apply refuses the start.
 */
class ListenerSettingsIT {

    @RegisterExtension
    final ConsumerExtension lens =
            Service.extension().property("lens.archive.enabled", "false").manualStart();

    @Test
    void springsPrefetchAndConcurrencyAreTheBrokersView() throws Exception {
        lens.start(Map.of(
                "spring.rabbitmq.listener.simple.prefetch", "7",
                "spring.rabbitmq.listener.simple.concurrency", "3",
                // 3 threads × 7 × 6MB = 126MB: within the default 128MB budget
                "lens.consumer.max-message-size", "6MB"));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> prefetchOfEachConsumer().size() == 3);
        assertThat(prefetchOfEachConsumer()).containsExactly(7, 7, 7);
    }

    @Test
    void oursWinOverSpringsWhereBothAreSet() throws Exception {
        lens.start(Map.of(
                "spring.rabbitmq.listener.simple.prefetch", "7",
                "spring.rabbitmq.listener.simple.concurrency", "3",
                "lens.consumer.prefetch", "2",
                "lens.consumer.concurrency", "1"));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> prefetchOfEachConsumer().size() == 1);
        assertThat(prefetchOfEachConsumer()).containsExactly(2);
    }

    @Test
    void aSpringSettingThatBreaksTheBudgetOrCannotApplyRefusesTheStartNamingIt() {
        assertThatThrownBy(() -> lens.start(Map.of("spring.rabbitmq.listener.simple.prefetch", "7")))
                .hasStackTraceContaining("spring.rabbitmq.listener.simple.prefetch")
                .hasStackTraceContaining("more than lens.consumer.max-in-flight-bytes (128MB)");
        assertThatThrownBy(() -> lens.start(Map.of("spring.rabbitmq.listener.simple.acknowledge-mode", "auto")))
                .hasStackTraceContaining("spring.rabbitmq.listener.simple.acknowledge-mode");
    }

    /** The prefetch of each consumer of this test's queue, as {@code rabbitmqctl list_consumers} shows them. */
    private List<Integer> prefetchOfEachConsumer() throws Exception {
        String queue = lens.topology().queue();
        return TestBroker.get()
                .rabbitmqctlOutput("-q", "list_consumers", "queue_name", "prefetch_count")
                .lines()
                .map(line -> line.split("\t"))
                .filter(cols -> cols.length == 2 && cols[0].strip().equals(queue))
                .map(cols -> Integer.parseInt(cols[1].strip()))
                .toList();
    }
}
