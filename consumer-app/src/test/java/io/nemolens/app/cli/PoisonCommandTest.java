package io.nemolens.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.nemolens.poison.ReplayRequest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

class PoisonCommandTest {

    @Test
    void parsesEveryReplayOption() {
        ReplayRequest r = PoisonCommand.Options.parse(
                        List.of(
                                "--max",
                                "100",
                                "--routing-key",
                                "otlp_spans",
                                "--category=decode",
                                "--reason",
                                "column",
                                "--include-input-failures",
                                "--dry-run",
                                "--rate",
                                "2.5"),
                        true)
                .request();
        assertThat(r).isEqualTo(ReplayRequest.of(100, "otlp_spans", "decode", "column", true, true, 2.5));
    }

    @Test
    void noOptionsMeansEverythingReplayable() {
        assertThat(PoisonCommand.Options.parse(List.of(), true).request()).isEqualTo(ReplayRequest.all());
    }

    @Test
    void badOptionsAreUsageErrors() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> PoisonCommand.Options.parse(List.of("--max"), true))
                .withMessageContaining("needs a value");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> PoisonCommand.Options.parse(List.of("--max", "-3"), true));
        assertThatIllegalArgumentException()
                .isThrownBy(() -> PoisonCommand.Options.parse(List.of("--rate", "0"), true));
        assertThatIllegalArgumentException()
                .isThrownBy(() -> PoisonCommand.Options.parse(List.of("--dry-run"), false))
                .withMessageContaining("unknown option for list");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> PoisonCommand.Options.parse(List.of("--force"), true))
                .withMessageContaining("unknown option: --force");
    }

    @Test
    void withoutASubCommandItPrintsUsage() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int code = new PoisonCommand(null, null).run(List.of(), new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertThat(code).isEqualTo(2);
        assertThat(bytes.toString(StandardCharsets.UTF_8))
                .contains("usage: poison list")
                .contains("poison replay");
        assertThat(new PoisonCommand(null, null).run(List.of("help"), new PrintStream(new ByteArrayOutputStream())))
                .isZero();
    }
}
