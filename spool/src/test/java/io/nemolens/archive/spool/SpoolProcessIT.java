package io.nemolens.archive.spool;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The spool against other processes ({@link SpoolChild}): the folder's lock holds across processes, and a
 * real full disk (ENOSPC, in a 2 MiB tmpfs mounted in a user and mount namespace of the child's own) fails
 * the append that hit it, refuses appends, and the spool recovers once released segments free space.
 */
class SpoolProcessIT {

    private static final String SMALL_TMPFS = "mount -t tmpfs -o size=2m tmpfs \"$0\"";

    @TempDir
    Path tmp;

    private record Outcome(int exitCode, String output) {}

    @Test
    void anotherProcessCannotOpenAFolderInUse() throws Exception {
        Path dir = tmp.resolve("spool");
        try (Spool spool = Spool.open(dir, new SpoolOptions(1 << 20, 1 << 16), Clock.systemUTC())) {
            Outcome outcome = run(child("open", dir));

            assertThat(outcome.exitCode()).as(outcome.output()).isZero();
            assertThat(outcome.output())
                    .contains("refused:", dir.toAbsolutePath().toString(), "in use");
            assertThat(spool.append(new byte[10]).durable().join()).isNull();
        }
    }

    @Test
    void aFullDiskFailsTheAppendItHitAndTheSpoolRecoversOnceReleasesFreeSpace() throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("small-disk"));
        // a real full disk needs a tmpfs of our own: the test fails (never skips) where it cannot have one
        Outcome probe = run(inSmallTmpfs(dir, List.of("true")));
        assertThat(probe.exitCode())
                .as(
                        "this test needs `unshare --user --map-root-user --mount` and a tmpfs mount inside it"
                                + " (util-linux, unprivileged user namespaces enabled): %s",
                        probe.output())
                .isZero();

        Outcome outcome = run(inSmallTmpfs(dir, child("disk-full", dir)));

        assertThat(outcome.exitCode()).as(outcome.output()).isZero();
        assertThat(outcome.output()).contains("No space left on device", "next append refused: true");
    }

    /** The command run with a 2 MiB tmpfs on {@code dir}, seen by it alone. */
    private static List<String> inSmallTmpfs(Path dir, List<String> command) {
        List<String> line = new ArrayList<>(List.of(
                "unshare", "--user", "--map-root-user", "--mount", "sh", "-c", SMALL_TMPFS + " && exec \"$@\""));
        line.add(dir.toString());
        line.addAll(command);
        return line;
    }

    private static List<String> child(String scenario, Path dir) {
        return List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp",
                System.getProperty("java.class.path"),
                SpoolChild.class.getName(),
                scenario,
                dir.toString());
    }

    private static Outcome run(List<String> command) throws IOException, InterruptedException {
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            return new Outcome(-1, e.toString());
        }
        process.getOutputStream().close();
        byte[] output = process.getInputStream().readAllBytes();
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            return new Outcome(-1, "timed out: " + new String(output, StandardCharsets.UTF_8));
        }
        return new Outcome(process.exitValue(), new String(output, StandardCharsets.UTF_8));
    }
}
