package io.nemolens.archive.dedup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.nemolens.decode.MessageIds;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MessageKeyTest {

    @Test
    void readsTheIdThatMessageIdsWrites() {
        String id = MessageIds.of("a body".getBytes(StandardCharsets.UTF_8));

        MessageKey key = MessageKey.ofHex(id);

        assertThat(key.hex()).isEqualTo(id);
        assertThat(key.high()).isEqualTo(Long.parseUnsignedLong(id.substring(0, 16), 16));
        assertThat(key.low()).isEqualTo(Long.parseUnsignedLong(id.substring(16), 16));
    }

    @Test
    void keepsLeadingZerosAndTheTopBit() {
        MessageKey key = new MessageKey(0x00000000000000ffL, 0x8000000000000001L);

        assertThat(key.hex()).isEqualTo("00000000000000ff8000000000000001");
        assertThat(MessageKey.ofHex(key.hex())).isEqualTo(key);
        assertThat(key).hasToString(key.hex());
    }

    @Test
    void readsUpperCase() {
        assertThat(MessageKey.ofHex("ABCDEF0123456789ABCDEF0123456789").hex())
                .isEqualTo("abcdef0123456789abcdef0123456789");
    }

    @Test
    void refusesWhatIsNotAnId() {
        assertThatIllegalArgumentException().isThrownBy(() -> MessageKey.ofHex("abc"));
        assertThatIllegalArgumentException()
                .isThrownBy(() -> MessageKey.ofHex("g0000000000000000000000000000000"))
                .withMessageContaining("at 0");
        assertThatIllegalArgumentException()
                .isThrownBy(() -> MessageKey.ofHex("0000000000000000000000000000000\u0663"));
    }
}
