package io.nemolens.claims;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Message ids between the archive's spelling (32 lower-case hex digits) and the table's (16 bytes). */
class MessageIdsTest {

    private static final String A = "00000000000000000000000000000001";
    private static final String B = "ff0123456789abcdef0123456789abcd";

    @Test
    void sortsInTheOrderOfTheBytesWithoutDuplicates() {
        assertThat(MessageIds.sortedDistinct(List.of(B, A, B))).containsExactly(A, B);
        byte[][] bytes = MessageIds.toBytes(List.of(A, B));
        assertThat(Byte.toUnsignedInt(bytes[0][0])).isLessThan(Byte.toUnsignedInt(bytes[1][0]));
    }

    @Test
    void bytesAndHexRoundTrip() {
        byte[][] bytes = MessageIds.toBytes(List.of(B));
        assertThat(bytes[0]).hasSize(16);
        assertThat(MessageIds.toHex(bytes[0])).isEqualTo(B);
    }

    @Test
    void refusesWhatIsNotAnIdAsTheArchiveSpellsIt() {
        assertThatIllegalArgumentException().isThrownBy(() -> MessageIds.sortedDistinct(List.of("abc")));
        assertThatIllegalArgumentException()
                .isThrownBy(() -> MessageIds.sortedDistinct(List.of(B.toUpperCase(java.util.Locale.ROOT))))
                .withMessageContaining("lower-case");
        assertThatIllegalArgumentException().isThrownBy(() -> MessageIds.sortedDistinct(List.of("g" + A.substring(1))));
    }
}
