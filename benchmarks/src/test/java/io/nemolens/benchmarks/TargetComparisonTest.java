package io.nemolens.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The targets option, the order of the targets from pass to pass, and the medians the bench reports. */
class TargetComparisonTest {

    @Test
    void targetsAreReadInTheOrderGivenOnceEach() {
        assertThat(Target.parse("local,s3,s3+claims")).containsExactly(Target.LOCAL, Target.S3, Target.S3_CLAIMS);
        assertThat(Target.parse(" S3 , local,s3")).containsExactly(Target.S3, Target.LOCAL);
        assertThatThrownBy(() -> Target.parse("local,minio"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("minio");
    }

    @Test
    void eachTargetGoesFirstInTurn() {
        List<String> targets = List.of("local", "s3", "s3+claims");
        assertThat(TargetComparison.rotated(targets, 1)).containsExactly("local", "s3", "s3+claims");
        assertThat(TargetComparison.rotated(targets, 2)).containsExactly("s3", "s3+claims", "local");
        assertThat(TargetComparison.rotated(targets, 3)).containsExactly("s3+claims", "local", "s3");
        assertThat(TargetComparison.rotated(targets, 4)).containsExactly("local", "s3", "s3+claims");
        assertThat(TargetComparison.rotated(List.of("local"), 2)).containsExactly("local");
    }

    @Test
    void theMedianIsTheMiddleOrTheMeanOfTheMiddleTwo() {
        assertThat(TargetComparison.median(new double[] {3, 1, 2})).isEqualTo(2);
        assertThat(TargetComparison.median(new double[] {4, 1, 3, 2})).isEqualTo(2.5);
        assertThat(TargetComparison.median(new double[0])).isNaN();
    }

    @Test
    void uploadRatesComeFromTheStoreTimeAndFromTheWallTime() {
        TargetComparison.Result r = new TargetComparison.Result(
                Target.S3,
                1,
                100_000,
                4.0,
                10,
                50,
                16,
                40_000_000,
                500_000_000,
                2_500_000,
                1,
                new HeapAfterGc.Reading(100 << 20, 200 << 20, -1, 10, 0),
                3.0);
        assertThat(r.publishMegabytesPerSecond()).isEqualTo(80.0);
        assertThat(r.wallMegabytesPerSecond()).isEqualTo(10.0);
    }
}
