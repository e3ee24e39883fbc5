package io.nemolens.archive.spool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class SpoolOptionsTest {

    @Test
    void takesPositiveSizesWithSegmentsNoBiggerThanTheSpool() {
        assertThat(new SpoolOptions(10L << 30, 64L << 20).segmentBytes()).isEqualTo(64L << 20);
        assertThatThrownBy(() -> new SpoolOptions(0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new SpoolOptions(100, 101)).hasMessageContaining("at most maxBytes");
        assertThatThrownBy(() -> new SpoolOptions(8L << 30, 4L << 30)).hasMessageContaining("below 2 GiB");
    }
}
