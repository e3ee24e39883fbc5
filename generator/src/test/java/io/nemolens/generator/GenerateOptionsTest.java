package io.nemolens.generator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nemolens.generator.TelemetryGenerator.Faults;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The straggler options of {@link GenerateOptions}: defaults, values, and what it refuses. */
class GenerateOptionsTest {

    private static GenerateOptions parse(String args) {
        return GenerateOptions.parse(args.isEmpty() ? List.of() : List.of(args.split(" ")), "run-1");
    }

    @Test
    void withoutStragglerOptionsThereAreNoFaults() {
        assertThat(parse("").faults()).isEqualTo(Faults.NONE);
        assertThat(Faults.NONE.slowRank()).isNull();
        assertThat(Faults.NONE.slowFactor()).isEqualTo(1.3);
        assertThat(Faults.NONE.slowFrom()).isEqualTo(50);
        assertThat(Faults.NONE.throttledRank()).isNull();
        assertThat(Faults.NONE.flakyNetworkRank()).isNull();
    }

    @Test
    void aSlowRankTakesTheDefaultFactorAndFirstIteration() {
        assertThat(parse("--ranks 16 --slow-rank 15").faults()).isEqualTo(new Faults(15, 1.3, 50, null, null));
    }

    @Test
    void readsEveryStragglerOption() {
        GenerateOptions options = parse("--ranks 16 --slow-rank 3 --slow-factor 1.75 --slow-from=1"
                + " --throttled-rank 13 --flaky-network-rank 9");

        assertThat(options.faults()).isEqualTo(new Faults(3, 1.75, 1, 13, 9));
        assertThat(GenerateCommand.stragglers(options.faults()))
                .isEqualTo("rank 3 1.75x slower from iteration 1; GPU 5 of dgx-a100-001 (rank 13) throttles;"
                        + " dgx-a100-001 (rank 9) has network errors");
        assertThat(GenerateCommand.stragglers(Faults.NONE)).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            --slow-rank 8                                 | --slow-rank must be a rank from 0 to 7 (--ranks 8), got 8
            --ranks 1 --throttled-rank 1                  | --throttled-rank must be a rank from 0 to 0 (--ranks 1), got 1
            --flaky-network-rank -1                       | --flaky-network-rank must be at least 0, got -1
            --flaky-network-rank one                      | --flaky-network-rank must be a whole number, got 'one'
            --slow-rank 0 --slow-factor 1                 | --slow-factor must be a number above 1, got '1'
            --slow-rank 0 --slow-factor 0.8               | --slow-factor must be a number above 1, got '0.8'
            --slow-rank 0 --slow-factor fast              | --slow-factor must be a number above 1, got 'fast'
            --slow-rank 0 --slow-factor Infinity          | --slow-factor must be a number above 1, got 'Infinity'
            --slow-rank 0 --slow-from 0                   | --slow-from must be at least 1, got 0
            --slow-factor 1.5                             | --slow-factor needs a --slow-rank
            --slow-from 10                                | --slow-from needs a --slow-rank
            --slow-rank 1 --slow-rank 2                   | --slow-rank given twice
            --gpus-per-host 4 --throttled-rank 6          | --throttled-rank 6 runs on GPU 6 of dgx-a100-000, which --gpus-per-host 4 leaves out
            """)
    void refusesStragglersThatDoNotFitTheRun(String args, String message) {
        assertThatThrownBy(() -> parse(args))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }

    @Test
    void theUsageListsEveryStragglerOption() {
        assertThat(GenerateOptions.USAGE)
                .contains("  --slow-rank N ")
                .contains("  --slow-factor F ")
                .contains("(default 1.3)")
                .contains("  --slow-from I ")
                .contains("(default 50)")
                .contains("  --throttled-rank N ")
                .contains("  --flaky-network-rank N ");
        for (String line : GenerateOptions.USAGE.split("\n", -1)) {
            if (line.startsWith("  --")) {
                assertThat(line.substring(31, 34))
                        .as("the description of '%s' starts in the column of the others", line)
                        .matches("  \\S");
            }
        }
    }
}
