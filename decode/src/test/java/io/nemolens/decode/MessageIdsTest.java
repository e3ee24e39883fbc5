package io.nemolens.decode;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** A message's id: the first 128 bits of the SHA-256 of its body, in 32 lowercase hex digits. */
class MessageIdsTest {

    @Test
    void isTheFirstHalfOfTheSha256InLowercaseHex() {
        // SHA-256("") = e3b0c442 98fc1c14 9afbf4c8 996fb924 27ae41e4 649b934c a495991b 7852b855
        assertThat(MessageIds.of(new byte[0])).isEqualTo("e3b0c44298fc1c149afbf4c8996fb924");
        // SHA-256("abc") = ba7816bf 8f01cfea 414140de 5dae2223 b00361a3 96177a9c b410ff61 f20015ad
        assertThat(MessageIds.of("abc".getBytes(StandardCharsets.US_ASCII)))
                .isEqualTo("ba7816bf8f01cfea414140de5dae2223");
    }

    @Test
    void equalBodiesGetEqualIds() {
        byte[] body = {1, 2, 3};
        assertThat(MessageIds.of(body)).isEqualTo(MessageIds.of(body.clone())).hasSize(32);
        assertThat(MessageIds.of(body)).isNotEqualTo(MessageIds.of(new byte[] {1, 2, 4}));
    }
}
