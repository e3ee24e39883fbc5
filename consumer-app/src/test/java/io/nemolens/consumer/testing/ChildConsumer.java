package io.nemolens.consumer.testing;

import io.nemolens.topology.testing.TestBroker;
import io.nemolens.topology.testing.TestTopology;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The consumer in a child JVM, as deployed: {@code java [jvm options] -jar target/*-exec.jar} against the test
 * broker and a test topology, its output (stdout and stderr) in a log file. For tests that kill it, starve
 * it of memory or watch how it ends.
 */
public final class ChildConsumer {

    private ChildConsumer() {}

    /**
     * Starts one.
     *
     * @param log where its output goes
     * @param jvmOptions before {@code -jar}, e.g. {@code -Xmx256m}
     * @param properties {@code --name=value} arguments, after the broker's and the topology's
     */
    public static Process start(Path log, TestTopology topology, List<String> jvmOptions, Map<String, ?> properties)
            throws IOException {
        TestBroker broker = TestBroker.get();
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvmOptions);
        cmd.add("-jar");
        cmd.add(execJar().toString());
        for (Map.Entry<String, Object> e : broker.springProperties().entrySet()) {
            cmd.add("--" + e.getKey() + "=" + e.getValue());
        }
        topology.properties().forEach((k, v) -> cmd.add("--" + k + "=" + v));
        properties.forEach((k, v) -> cmd.add("--" + k + "=" + v));
        Files.createDirectories(log.toAbsolutePath().getParent());
        return new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
    }

    /** The runnable jar the package phase built (failsafe runs after it). */
    public static Path execJar() throws IOException {
        try (Stream<Path> s = Files.list(Path.of("target"))) {
            return s.filter(p -> p.getFileName().toString().endsWith("-exec.jar"))
                    .findFirst()
                    .orElseThrow(
                            () -> new IllegalStateException("no runnable jar in target/: run the package phase first"));
        }
    }
}
