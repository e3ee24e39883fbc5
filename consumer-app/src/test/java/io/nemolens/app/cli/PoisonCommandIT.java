package io.nemolens.app.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.app.poison.BreakableHandlers;
import io.nemolens.app.testing.Commands;
import io.nemolens.app.testing.Commands.Result;
import io.nemolens.app.testing.Service;
import io.nemolens.app.testing.SmallRequests;
import io.nemolens.testing.ChildJvm;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.ConsumerProcess;
import io.nemolens.testing.JarRun;
import io.nemolens.testing.TestBroker;
import io.nemolens.testing.TestTopology;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The jar's {@code poison list} and {@code poison replay} commands against a real broker, in this JVM
 * (as {@code LensConsumerApplication.main} runs them) and once through the built exec jar.
 */
class PoisonCommandIT {

    @RegisterExtension
    final ConsumerExtension lens = Service.extension(BreakableHandlers.class)
            .properties(Map.of("lens.consumer.handler-retry.max-attempts", "1", "lens.consumer.concurrency", "1"));

    @RegisterExtension
    final Commands commands = new Commands();

    private TestTopology topology;
    private BreakableHandlers.State state;

    @BeforeEach
    void poisonFour() throws Exception {
        topology = lens.topology();
        state = lens.bean(BreakableHandlers.State.class);
        lens.publish("otlp_spans", SmallRequests.spans("run-c", "fail-span-1"));
        lens.publish("otlp_logs", SmallRequests.logs("run-c", "fail-log-1"));
        lens.publish("otlp_spans", "{\"resourceSpans\":[".getBytes(StandardCharsets.UTF_8));
        lens.publish("otlp_spans", SmallRequests.spans("run-c", "fail-span-2"));
        await().atMost(Duration.ofSeconds(30)).until(() -> lens.poisoned() == 4);
        state.broken = false;
    }

    @Test
    void listThenReplayAFilteredSubsetFromTheCommandLine() throws Exception {
        pointCommandsAtTheTestBroker();

        Result list = commands.run("poison", "list");
        assertThat(list.code()).isZero();
        assertThat(list.out())
                .contains("poison queue '" + topology.poisonQueue() + "': 4 message(s), 4 examined")
                .containsPattern(
                        "\\s+2\\s+handler\\s+otlp_spans\\s+handler failed after # attempt.*cannot take fail-span-#")
                .containsPattern(
                        "\\s+1\\s+handler\\s+otlp_logs\\s+handler failed after # attempt.*cannot take fail-log-#")
                .containsPattern("\\s+1\\s+decode\\s+otlp_spans\\s+malformed")
                .containsPattern("\\s+1\\s+[0-9a-f]{12}\\s+otlp_spans\\s+handler\\s+0\\s+0\\s+\\d+\\s+20\\d\\d-");

        Result dry = commands.run("poison", "replay", "--max", "100", "--routing-key", "otlp_spans", "--dry-run");
        assertThat(dry.code()).isZero();
        assertThat(dry.out())
                .contains("dry run, nothing moved: would replay 2, skipped 2, would park 0, failed 0 (of 4 examined)");
        assertThat(state.handled).isEmpty();

        Result replay = commands.run("poison", "replay", "--routing-key", "otlp_spans", "--category=handler");
        assertThat(replay.code()).isZero();
        assertThat(replay.out()).contains("replayed 2, skipped 2, parked 0, failed 0 (of 4 examined)");
        await().atMost(Duration.ofSeconds(20)).until(() -> state.handled.size() == 2);
        assertThat(state.handled).containsExactlyInAnyOrder("fail-span-1", "fail-span-2");

        Result after = commands.run("poison", "list", "--max", "1");
        assertThat(after.out())
                .contains(": 2 message(s), 2 examined")
                .contains("(1 more not listed; --max N lists more)");

        Result usage = commands.run("poison", "replay", "--bogus");
        assertThat(usage.code()).isEqualTo(2);
        assertThat(usage.out()).contains("unknown option: --bogus").contains("usage: poison list");
    }

    @Test
    void theExecJarListsThePoisonQueue() throws Exception {
        Path jar = ConsumerProcess.serviceJar(); // failsafe runs in the module directory
        assertThat(jar)
                .as("the exec jar is built by 'package', before the integration tests")
                .exists();
        JarRun.Outcome run = JarRun.run(
                ChildJvm.jar(jar).args(List.of("poison", "list", "--max", "2")).environment(environment()),
                Duration.ofSeconds(60));
        String out = run.output();
        assertThat(run.exited()).isTrue();
        assertThat(run.exitCode()).as(out).isZero();
        assertThat(out)
                .contains("poison queue '" + topology.poisonQueue() + "': 4 message(s), 4 examined")
                .contains("(2 more not listed; --max N lists more)");
        assertThat(out).doesNotContain("Tomcat").doesNotContain("password");
    }

    @Test
    void theExecJarTakesSpringPropertiesAsTheServiceDoesAndWritesNoFiles() throws Exception {
        Path jar = ConsumerProcess.serviceJar();
        assertThat(jar).exists();
        Path workingDir = Files.createTempDirectory("lens-poison-cwd");
        List<String> properties = new ArrayList<>();
        Map<String, Object> props = new LinkedHashMap<>(TestBroker.get().springProperties());
        props.putAll(topology.properties());
        props.forEach((k, v) -> properties.add("--" + k + "=" + v));
        // the Spring form, as for the service: before the command's name and among its options
        List<String> args = new ArrayList<>();
        args.add(properties.get(0));
        args.addAll(List.of("poison", "replay", "--dry-run"));
        args.addAll(properties.subList(1, properties.size()));
        args.addAll(List.of("--routing-key", "otlp_spans"));
        JarRun.Outcome run = JarRun.run(jar, args, workingDir, Duration.ofSeconds(120));
        String out = run.output();
        assertThat(run.exited()).as("the command ends by itself: " + out).isTrue();

        assertThat(run.exitCode()).as(out).isZero();
        assertThat(out)
                .contains("dry run, nothing moved: would replay 2, skipped 2, would park 0, failed 0 (of 4 examined)");
        try (Stream<Path> files = Files.list(workingDir)) {
            assertThat(files).as("files the command left in its working folder").isEmpty();
        }
        Files.delete(workingDir);

        Result spaced = commands.run("poison", "list", "--lens.topology.poison-queue", topology.poisonQueue());
        assertThat(spaced.code()).isEqualTo(2);
        assertThat(spaced.out()).contains("a Spring property takes the form --name=value");
    }

    private void pointCommandsAtTheTestBroker() {
        Map<String, Object> props = new LinkedHashMap<>(TestBroker.get().springProperties());
        props.putAll(topology.properties());
        commands.pointAt(props);
    }

    private Map<String, String> environment() {
        Map<String, Object> props = new LinkedHashMap<>(TestBroker.get().springProperties());
        props.putAll(topology.properties());
        Map<String, String> env = new LinkedHashMap<>();
        props.forEach(
                (k, v) -> env.put(k.toUpperCase(Locale.ROOT).replace('.', '_').replace("-", ""), String.valueOf(v)));
        return env;
    }
}
