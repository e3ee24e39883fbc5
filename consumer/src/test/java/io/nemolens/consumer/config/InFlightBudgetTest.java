package io.nemolens.consumer.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.unit.DataSize;

class InFlightBudgetTest {

    private static final DataSize MB_16 = DataSize.ofMegabytes(16);

    @Test
    void withTheDefaultsEachThreadMayHoldFourMessagesOfTheLargestSize() {
        InFlightBudget budget = InFlightBudget.of(
                null, "lens.consumer.prefetch", 2, "lens.consumer.concurrency", MB_16, DataSize.ofMegabytes(128));

        assertThat(budget.prefetch()).isEqualTo(4);
        assertThat(budget.worstCaseBytes()).isEqualTo(DataSize.ofMegabytes(128).toBytes());
    }

    @Test
    void theDerivedPrefetchRoundsDownSoThatTheWorstCaseStaysWithinTheBudget() {
        InFlightBudget budget = InFlightBudget.of(
                null, "lens.consumer.prefetch", 3, "lens.consumer.concurrency", MB_16, DataSize.ofMegabytes(100));

        assertThat(budget.prefetch()).isEqualTo(2); // 100 / (3 × 16) = 2.08
        assertThat(budget.worstCaseBytes())
                .isLessThanOrEqualTo(DataSize.ofMegabytes(100).toBytes());
    }

    @Test
    void smallMessagesGetTheUsualPrefetchNotThousands() {
        InFlightBudget budget = InFlightBudget.of(
                null,
                "lens.consumer.prefetch",
                2,
                "lens.consumer.concurrency",
                DataSize.ofKilobytes(64),
                DataSize.ofMegabytes(128));

        assertThat(budget.prefetch()).isEqualTo(InFlightBudget.MAX_DERIVED_PREFETCH);
    }

    @Test
    void aBudgetOfExactlyOneLargestMessagePerThreadIsPrefetchOne() {
        InFlightBudget budget = InFlightBudget.of(
                null, "lens.consumer.prefetch", 2, "lens.consumer.concurrency", MB_16, DataSize.ofMegabytes(32));

        assertThat(budget.prefetch()).isEqualTo(1);
        assertThat(budget.worstCaseBytes()).isEqualTo(DataSize.ofMegabytes(32).toBytes());
    }

    @Test
    void anExplicitPrefetchThatFitsIsKept() {
        assertThat(InFlightBudget.of(
                                7,
                                "lens.consumer.prefetch",
                                3,
                                "lens.consumer.concurrency",
                                DataSize.ofMegabytes(1),
                                DataSize.ofMegabytes(128))
                        .prefetch())
                .isEqualTo(7);
        assertThat(InFlightBudget.of(
                                4,
                                "lens.consumer.prefetch",
                                2,
                                "lens.consumer.concurrency",
                                MB_16,
                                DataSize.ofMegabytes(128))
                        .prefetch())
                .isEqualTo(4);
    }

    @Test
    void anExplicitPrefetchBeyondTheBudgetIsRefusedSayingWhatFits() {
        assertThatThrownBy(() -> InFlightBudget.of(
                        20, "lens.consumer.prefetch", 2, "lens.consumer.concurrency", MB_16, DataSize.ofMegabytes(128)))
                .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                .hasMessageContaining("lens.consumer.prefetch")
                .hasMessageContaining("640MB")
                .hasMessageContaining("at most 4 per thread");
    }

    @Test
    void aBudgetSmallerThanOneLargestMessagePerThreadIsRefused() {
        assertThatThrownBy(() -> InFlightBudget.of(
                        null,
                        "lens.consumer.prefetch",
                        2,
                        "lens.consumer.concurrency",
                        MB_16,
                        DataSize.ofMegabytes(20)))
                .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                .hasMessageContaining("lens.consumer.max-in-flight-bytes")
                .hasMessageContaining("32MB");
    }

    @Test
    void aBudgetBelowTheLargestMessageIsRefusedEvenWithOneThread() {
        assertThatThrownBy(() -> InFlightBudget.of(
                        1, "lens.consumer.prefetch", 1, "lens.consumer.concurrency", MB_16, DataSize.ofMegabytes(8)))
                .isInstanceOf(InvalidConfigurationPropertyValueException.class)
                .hasMessageContaining("lens.consumer.max-in-flight-bytes");
    }
}
