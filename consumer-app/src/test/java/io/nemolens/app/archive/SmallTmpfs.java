package io.nemolens.app.archive;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.testing.ConsumerProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A small tmpfs of a child process's own: {@code unshare --user --map-root-user --mount} gives it a mount
 * namespace in which it may mount one, on a folder of the test's, without privileges; no other process sees
 * it, and it is gone with the process. The test reaches it through {@code /proc/<pid>/root}. A test that needs
 * one fails (never skips) where it cannot have one.
 */
final class SmallTmpfs {

    private final Path dir;
    private final String size;

    /** A tmpfs of {@code size} ({@code mount -o size=}, e.g. {@code 16m}) on {@code dir}. */
    SmallTmpfs(Path dir, String size) {
        this.dir = dir.toAbsolutePath();
        this.size = size;
    }

    /** Fails the test, saying what it needs, unless this machine gives an unprivileged process a tmpfs. */
    void assertAvailable() throws IOException, InterruptedException {
        assertThat(new ProcessBuilder(launcher(List.of("true")))
                        .redirectErrorStream(true)
                        .start()
                        .waitFor())
                .as("this test needs `unshare --user --map-root-user --mount` and a tmpfs mount inside it"
                        + " (util-linux, unprivileged user namespaces enabled)")
                .isZero();
    }

    /** What runs {@code command} with the tmpfs mounted (it execs the command: same pid). */
    List<String> launcher(List<String> command) {
        List<String> line = new ArrayList<>(List.of(
                "unshare",
                "--user",
                "--map-root-user",
                "--mount",
                "sh",
                "-c",
                "mount -t tmpfs -o size=" + size + " tmpfs \"$0\" && exec \"$@\""));
        line.add(dir.toString());
        line.addAll(command);
        return line;
    }

    /** The launcher of a child JVM: {@link #launcher(List)} of the {@code java} command line that follows. */
    List<String> launcher() {
        return launcher(List.of());
    }

    /** {@code path} (on the tmpfs) as this process sees it, while {@code child} runs. */
    static Path seenBy(ConsumerProcess child, Path path) {
        return Path.of("/proc/" + child.pid() + "/root" + path.toAbsolutePath());
    }
}
