package io.nemolens.archive;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.archive.store.LocalFolder;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.handlers.ReceivedMessage;
import io.nemolens.handlers.Signal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The commit path's moments reach the archive's listeners: a message is durable before its acknowledgement,
 * its id is claimed in a batch, the files the store took are named; a listener that throws holds up nothing.
 */
class CommitListenerTest extends ArchiveTestCase {

    private final Set<String> durable = ConcurrentHashMap.newKeySet();
    private final List<String> claiming = new CopyOnWriteArrayList<>();
    private final List<String> published = new CopyOnWriteArrayList<>();

    private final CommitListener recording = new CommitListener() {
        @Override
        public void durable(String messageId) {
            durable.add(messageId);
        }

        @Override
        public void claiming(List<String> messageIds) {
            claiming.addAll(messageIds);
        }

        @Override
        public void published(String name) {
            published.add(name);
        }
    };

    private final CommitListener failing = new CommitListener() {
        @Override
        public void durable(String messageId) {
            throw new IllegalStateException("a listener that fails (test)");
        }

        @Override
        public void claiming(List<String> messageIds) {
            throw new IllegalStateException("a listener that fails (test)");
        }

        @Override
        public void published(String name) {
            throw new IllegalStateException("a listener that fails (test)");
        }
    };

    @Test
    void theListenersAreToldOfEachMomentAndOneThatFailsHoldsUpNothing() throws Exception {
        archive = ParquetArchive.builder(
                        ArchiveOptions.builder(dir).instanceId("a").build(), decoder)
                .store(new LocalFolder(dir))
                .claims(new InMemoryClaims())
                .listeners(List.of(failing, recording))
                .open();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            byte[] body = NemoLensRequests.spans(9, "run-" + (i % 2), 0, i).toByteArray();
            ReceivedMessage m = ParquetArchiveTest.received(decoder.decode(Signal.SPANS, body, null), body);
            archive.accept(m).toCompletableFuture().get(30, TimeUnit.SECONDS);
            ids.add(m.info().messageId());
            assertThat(durable)
                    .as("told durable before the acknowledgement")
                    .contains(m.info().messageId());
        }
        archive.commitNow();

        assertThat(claiming).as("claimed, each once").containsExactlyInAnyOrderElementsOf(ids);
        assertThat(published).as("the files the store took").containsExactlyInAnyOrderElementsOf(committedFiles());
    }

    private List<String> committedFiles() throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(f -> f.getFileName().toString().matches("part-.*\\.parquet"))
                    .map(f -> dir.relativize(f).toString())
                    .toList();
        }
    }
}
