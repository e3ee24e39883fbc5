package io.nemolens.archive;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.generator.NemoLensRequests;
import io.nemolens.handlers.ReceivedMessage;
import io.nemolens.handlers.Signal;
import io.nemolens.testing.ArchiveReader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A redelivery of a message the archive is still appending (the broker redelivers when a connection drops
 * while the first delivery waits for its fsync) is acknowledged only once the first delivery's append is
 * durable: that append can still fail, and the message must then not be acknowledged.
 */
class RedeliveryTest extends ArchiveTestCase {

    @Test
    void aRedeliveryWhileTheFirstAppendIsNotDurableIsAcknowledgedNoEarlierThanTheFirstDelivery() throws Exception {
        archive = ParquetArchive.builder(ArchiveOptions.defaults(dir), decoder).open();
        List<ReceivedMessage> sent = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            byte[] body = NemoLensRequests.spans(30, "run-a", 0, i).toByteArray();
            ReceivedMessage message = ParquetArchiveTest.received(decoder.decode(Signal.SPANS, body, null), body);
            sent.add(message);

            CompletableFuture<?> first = archive.accept(message).toCompletableFuture();
            CompletableFuture<?> redelivery = archive.accept(message).toCompletableFuture();
            boolean redeliveryAcknowledged = redelivery.isDone();
            boolean firstAcknowledged = first.isDone();
            assertThat(!redeliveryAcknowledged || firstAcknowledged)
                    .as("message %d: the redelivery is acknowledged only once the first delivery is durable", i)
                    .isTrue();
            first.get(30, TimeUnit.SECONDS);
            redelivery.get(30, TimeUnit.SECONDS);
        }
        assertThat(archive.status().spool().duplicates()).isEqualTo(sent.size());

        archive.commitNow();
        long expected = sent.stream().mapToLong(m -> m.records().spans().size()).sum();
        try (ArchiveReader reader = new ArchiveReader(dir)) {
            assertThat(reader.scalar("SELECT count(*) FROM %s", "spans")).isEqualTo(expected);
            assertThat(reader.scalar("SELECT count(*) FROM (SELECT DISTINCT _message_id, _row FROM %s)", "spans"))
                    .isEqualTo(expected);
        }
    }
}
