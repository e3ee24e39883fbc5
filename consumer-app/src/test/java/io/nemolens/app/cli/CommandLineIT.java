package io.nemolens.app.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.testing.ConsumerProcess;
import io.nemolens.testing.JarRun;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The service's exec jar (consumer-app/target/*-exec.jar, the jar users run) on a word it does not know: a
 * usage error that lists the commands, exit code 2, and no consumer started (it would never exit by itself,
 * and it would leave an archive folder in the working directory).
 */
class CommandLineIT {

    @TempDir
    Path workingDir;

    @ParameterizedTest
    @ValueSource(strings = {"generate", "--help", "poisn"})
    void anUnknownCommandIsAUsageErrorNeverAStartOfTheService(String word) throws Exception {
        JarRun.Outcome run =
                JarRun.run(ConsumerProcess.serviceJar(), List.of(word, "--help"), workingDir, Duration.ofSeconds(120));
        assertThat(run.exited()).as("ends by itself: %s", run.output()).isTrue();
        if (word.equals("--help")) {
            assertThat(run.exitCode()).as(run.output()).isZero();
        } else {
            assertThat(run.exitCode()).as(run.output()).isEqualTo(2);
            assertThat(run.output()).contains("unknown command: " + word);
        }
        assertThat(run.output())
                .contains("usage: java -jar lens-consumer-app-exec.jar")
                .contains("poison");
        try (Stream<Path> written = Files.list(workingDir)) {
            assertThat(written)
                    .as("no consumer ran: no archive or spool folder")
                    .isEmpty();
        }
    }

    /**
     * The usage needs no broker: asked with none reachable (a port nothing listens on), {@code --help} and a
     * mistyped command are answered by the jar before any context starts, well within the 5 s a person waits.
     */
    @ParameterizedTest
    @ValueSource(strings = {"--help", "genrate"})
    void theUsageNeedsNoBroker(String word) throws Exception {
        List<String> args = List.of(word, "--spring.rabbitmq.host=127.0.0.1", "--spring.rabbitmq.port=" + closedPort());
        JarRun.Outcome run = JarRun.run(ConsumerProcess.serviceJar(), args, workingDir, Duration.ofSeconds(5));
        assertThat(run.exited()).as("answered within 5 s: %s", run.output()).isTrue();
        assertThat(run.exitCode()).as(run.output()).isEqualTo(word.equals("--help") ? 0 : 2);
        assertThat(run.output())
                .contains("usage: java -jar lens-consumer-app-exec.jar")
                .contains("poison")
                .doesNotContain("Exception");
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Test
    void helpListsTheCommands() throws Exception {
        JarRun.Outcome run =
                JarRun.run(ConsumerProcess.serviceJar(), List.of("help"), workingDir, Duration.ofSeconds(120));
        assertThat(run.exitCode()).as(run.output()).isZero();
        assertThat(run.output()).contains("poison").contains("list | replay the poison queue");
    }
}
