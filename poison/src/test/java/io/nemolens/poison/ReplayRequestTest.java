package io.nemolens.poison;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import org.junit.jupiter.api.Test;

class ReplayRequestTest {

    private static PoisonMessage message(String routingKey, String category, String reason) {
        return new PoisonMessage(1, "0".repeat(32), "x", routingKey, category, reason, "", null, null, 0, 0, 10);
    }

    @Test
    void everyFilterThatIsSetMustMatch() {
        ReplayRequest request = ReplayRequest.of(0, "otlp_spans", "handler", "Cannot Take", false, false, 0.0);
        assertThat(request.matches(message("otlp_spans", "handler", "handler bug: cannot take x")))
                .isTrue();
        assertThat(request.matches(message("otlp_logs", "handler", "handler bug: cannot take x")))
                .isFalse();
        assertThat(request.matches(message("otlp_spans", "handler-rejected", "cannot take x")))
                .isFalse();
        assertThat(request.matches(message("otlp_spans", "handler", "timeout"))).isFalse();
        assertThat(ReplayRequest.all().matches(message("anything", "decode", "")))
                .isTrue();
    }

    @Test
    void blankFiltersMeanAny() {
        ReplayRequest request = ReplayRequest.of(0, " ", "", null, false, false, 0.0);
        assertThat(request.routingKey()).isNull();
        assertThat(request.category()).isNull();
    }

    @Test
    void inputFailuresOnlyWhenAskedForExplicitly() {
        PoisonMessage decode = message("otlp_spans", "decode", "malformed");
        PoisonMessage unknown = message("otlp_profiles", "unknown-signal", "unknown routing key");
        assertThat(ReplayRequest.all().allows(decode)).isFalse();
        assertThat(ReplayRequest.all().allows(unknown)).isFalse();
        assertThat(ReplayRequest.all().allows(message("otlp_spans", "handler", "")))
                .isTrue();
        assertThat(ReplayRequest.all().allows(message("otlp_spans", PoisonMessage.BROKER_DEAD_LETTERED, "")))
                .isTrue();
        assertThat(ReplayRequest.of(0, null, null, null, true, false, 0.0).allows(decode))
                .isTrue();
        assertThat(ReplayRequest.of(0, null, "decode", null, false, false, 0.0).allows(decode))
                .isTrue();
        assertThat(ReplayRequest.of(0, null, "decode", null, false, false, 0.0).allows(unknown))
                .isFalse();
    }

    @Test
    void rejectsNegativeLimits() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> ReplayRequest.of(-1, null, null, null, false, false, 0.0));
        assertThatIllegalArgumentException()
                .isThrownBy(() -> ReplayRequest.of(0, null, null, null, false, false, -1.0));
    }

    @Test
    void theSummaryLineSaysWhatHappened() {
        assertThat(new ReplaySummary(false, 10, 4, 3, 2, 1, java.util.List.of()).line())
                .isEqualTo("replayed 4, skipped 3, parked 2, failed 1 (of 10 examined)");
        assertThat(new ReplaySummary(true, 10, 4, 3, 2, 1, java.util.List.of()).line())
                .isEqualTo(
                        "dry run, nothing moved: would replay 4, skipped 3, would park 2, failed 1 (of 10 examined)");
    }
}
