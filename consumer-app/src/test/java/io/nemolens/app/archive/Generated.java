package io.nemolens.app.archive;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.generator.GenerateCommand;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.TestBroker;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;

/**
 * README's generator command ({@code generate --count N --run-id RUN}: all five kinds, taking turns), run as a user
 * runs it, in a connection of its own, to a test's exchange; and what it reported: messages and records sent, records
 * per kind ({@code spans}, {@code metrics}, {@code logs}, {@code gpu}, {@code node}).
 *
 * @param output what it printed
 */
record Generated(int messages, long records, Map<String, Long> recordsByKind, String output) {

    private static final Pattern KIND_LINE = Pattern.compile(
            "^\\s+(spans|metrics|logs|gpu|node)\\s+(\\d+) messages\\s+(\\d+) records", Pattern.MULTILINE);
    private static final Pattern SENT_LINE =
            Pattern.compile("^sent (\\d+) messages, (\\d+) records", Pattern.MULTILINE);

    /** Runs it; fails the test unless it exits 0 and reports the messages asked for. */
    static Generated run(ConsumerExtension lens, int count, String runId) throws Exception {
        CachingConnectionFactory connections =
                new CachingConnectionFactory(TestBroker.get().connectionFactory());
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        int exit;
        try {
            exit = new GenerateCommand(() -> connections, lens.topology().exchange(), Clock.systemUTC())
                    .run(
                            List.of("--count", Integer.toString(count), "--run-id", runId),
                            new PrintStream(printed, true, StandardCharsets.UTF_8));
        } finally {
            connections.destroy();
        }
        String output = printed.toString(StandardCharsets.UTF_8);
        assertThat(exit).as(output).isZero();
        Matcher sent = SENT_LINE.matcher(output);
        assertThat(sent.find()).as(output).isTrue();
        assertThat(sent.group(1)).as(output).isEqualTo(Integer.toString(count));
        Map<String, Long> byKind = new HashMap<>();
        Matcher m = KIND_LINE.matcher(output);
        while (m.find()) {
            byKind.put(m.group(1), Long.parseLong(m.group(3)));
        }
        return new Generated(count, Long.parseLong(sent.group(2)), Map.copyOf(byKind), output);
    }

    /** The records of a kind it reported ({@code spans}, {@code metrics}, {@code logs}, {@code gpu}, {@code node}). */
    long records(String kind) {
        return recordsByKind.getOrDefault(kind, 0L);
    }
}
