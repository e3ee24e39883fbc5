package io.nemolens.archive.spool;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;

/**
 * What {@link SpoolProcessIT} runs in a child process: {@code open <dir>} tries to open a spool another
 * process holds; {@code disk-full <dir>} fills a small file system through the spool and frees it again.
 * Prints what it saw, one fact a line, and exits with 0 when all went as expected.
 */
final class SpoolChild {

    private static final int PAYLOAD_BYTES = 16 * 1024;

    private SpoolChild() {}

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[1]);
        boolean ok = switch (args[0]) {
            case "open" -> open(dir);
            case "disk-full" -> diskFull(dir);
            default -> throw new IllegalArgumentException(args[0]);
        };
        System.exit(ok ? 0 : 1);
    }

    private static boolean open(Path dir) {
        try (Spool spool = Spool.open(dir, new SpoolOptions(1 << 20, 1 << 16), Clock.systemUTC())) {
            System.out.println("opened " + spool.recovery());
            return false;
        } catch (IOException e) {
            System.out.println("refused: " + e.getMessage());
            return e.getMessage().contains("in use");
        }
    }

    /** Appends 16 KiB payloads until the disk is full, then releases them all and waits for appends to work again. */
    private static boolean diskFull(Path dir) throws IOException {
        try (Spool spool = Spool.open(dir, new SpoolOptions(256L << 20, 128 << 10), Clock.systemUTC())) {
            byte[] payload = new byte[PAYLOAD_BYTES];
            List<Long> durable = new ArrayList<>();
            Throwable failure = null;
            while (failure == null && durable.size() < 100_000) {
                Appended appended = spool.append(payload);
                try {
                    appended.durable().join();
                    durable.add(appended.seq());
                } catch (CompletionException e) {
                    failure = e.getCause();
                }
            }
            System.out.println("durable before the disk was full: " + durable.size());
            System.out.println("failure: " + failure + " caused by " + (failure == null ? null : failure.getCause()));
            System.out.println("status: " + spool.status());
            boolean refused;
            try {
                spool.append(payload);
                refused = false;
            } catch (SpoolUnavailableException e) {
                refused = true;
            }
            System.out.println("next append refused: " + refused);

            durable.forEach(spool::release);
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(200))
                    .ignoreExceptionsInstanceOf(SpoolUnavailableException.class)
                    .until(() -> appendsDurably(spool, payload));
            SpoolStatus status = spool.status();
            System.out.println("after releasing: " + status);
            return failure instanceof SpoolUnavailableException
                    && String.valueOf(failure.getCause()).contains("No space left on device")
                    && refused
                    && status.writable()
                    && status.entries() == 1;
        }
    }

    private static boolean appendsDurably(Spool spool, byte[] payload) {
        try {
            spool.append(payload).durable().join();
            return true;
        } catch (CompletionException e) {
            return false;
        }
    }
}
