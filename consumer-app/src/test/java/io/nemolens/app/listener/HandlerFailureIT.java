package io.nemolens.app.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.GetResponse;
import io.nemolens.app.testing.Service;
import io.nemolens.app.testing.SmallRequests;
import io.nemolens.consumer.poison.PoisonHeaders;
import io.nemolens.handlers.RejectBatchException;
import io.nemolens.handlers.SpanHandler;
import io.nemolens.handlers.TransientHandlerException;
import io.nemolens.handlers.record.Span;
import io.nemolens.testing.ConsumerExtension;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** What handler failures do to a message on a real broker: retried, then poisoned; rejected; transient. */
class HandlerFailureIT {

    /** Calls per span name, and the names of spans handled successfully. */
    static final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();

    static final List<String> succeeded = new CopyOnWriteArrayList<>();

    @Configuration(proxyBeanMethods = false)
    static class FailingHandlers {
        @Bean
        SpanHandler failingSpanHandler() {
            return batch -> {
                for (Span span : batch.records()) {
                    int call = calls.computeIfAbsent(span.name(), k -> new AtomicInteger())
                            .incrementAndGet();
                    switch (span.name()) {
                        case "always-fails" -> throw new IllegalStateException("handler bug for " + span.name());
                        case "reject-me" -> throw new RejectBatchException("this batch can never be stored");
                        case "fails-twice" -> {
                            if (call <= 2) {
                                throw new IllegalStateException("flaky " + call);
                            }
                        }
                        case "transient" -> {
                            if (call <= 5) {
                                throw new TransientHandlerException("downstream database unavailable");
                            }
                        }
                        default -> {}
                    }
                }
                batch.records().forEach(s -> succeeded.add(s.name()));
            };
        }
    }

    @RegisterExtension
    final ConsumerExtension lens = Service.extension(FailingHandlers.class)
            .properties(Map.of(
                    "lens.consumer.handler-retry.max-attempts", "3",
                    "lens.consumer.handler-retry.initial-backoff", "50ms",
                    "lens.consumer.transient-retry.initial-backoff", "20ms",
                    "lens.consumer.transient-retry.max-backoff", "100ms"));

    @BeforeEach
    void clear() {
        calls.clear(); // nothing is published before the test
        succeeded.clear();
    }

    @Test
    void aThrowingHandlerIsRetriedThenItsMessagePoisoned() throws Exception {
        lens.publish("otlp_spans", SmallRequests.spans("run", "always-fails"));

        await().atMost(Duration.ofSeconds(20)).until(() -> lens.poisoned() == 1);
        GetResponse dead = lens.client().drain(lens.topology().poisonQueue()).get(0);
        Map<String, Object> h = dead.getProps().getHeaders();
        assertThat(calls.get("always-fails")).hasValue(3);
        assertThat(h.get(PoisonHeaders.FAILURE_CATEGORY)).hasToString("handler");
        assertThat(h.get(PoisonHeaders.ATTEMPTS)).isEqualTo(3);
        assertThat(h.get(PoisonHeaders.EXCEPTION_CLASS)).hasToString(IllegalStateException.class.getName());
        assertThat(h.get(PoisonHeaders.EXCEPTION_MESSAGE).toString()).contains("handler bug for always-fails");
        assertThat(h.get(PoisonHeaders.EXCEPTION_STACKTRACE).toString()).contains("IllegalStateException");
        assertThat(h.get(PoisonHeaders.ENCODING)).hasToString("protobuf");
        assertThat(succeeded).isEmpty();
    }

    @Test
    void aRejectedBatchIsPoisonedAtOnceAndAFlakyOneSucceedsOnRetry() throws Exception {
        lens.publish("otlp_spans", SmallRequests.spans("run", "reject-me"));
        lens.publish("otlp_spans", SmallRequests.spans("run", "fails-twice"));

        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            assertThat(lens.poisoned()).isEqualTo(1);
            assertThat(succeeded).containsExactly("fails-twice");
        });
        GetResponse dead = lens.client().drain(lens.topology().poisonQueue()).get(0);
        assertThat(dead.getProps().getHeaders().get(PoisonHeaders.FAILURE_CATEGORY))
                .hasToString("handler-rejected");
        assertThat(calls.get("reject-me")).hasValue(1);
        assertThat(calls.get("fails-twice")).hasValue(3);
    }

    @Test
    void aTransientFailureIsRetriedBeyondTheHandlerLimitAndNeverPoisoned() throws Exception {
        lens.publish("otlp_spans", SmallRequests.spans("run", "transient"));

        await().atMost(Duration.ofSeconds(20))
                .untilAsserted(() -> assertThat(succeeded).containsExactly("transient"));
        assertThat(calls.get("transient").get()).isEqualTo(6);
        assertThat(lens.poisoned()).isZero();
        await().atMost(Duration.ofSeconds(10)).until(() -> lens.queued() == 0);
    }
}
