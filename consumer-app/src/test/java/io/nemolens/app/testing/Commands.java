package io.nemolens.app.testing;

import io.nemolens.app.LensConsumerApplication;
import io.nemolens.app.cli.LensCommandLine;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The jar's commands ({@code poison list}, {@code poison replay}) run in this JVM as
 * {@code LensConsumerApplication.main} runs them, their output captured and printed. A JUnit extension,
 * because the commands read the broker and the names from system properties: {@link #pointAt} sets them,
 * and they are as before again after each test.
 */
public final class Commands implements AfterEachCallback {

    /** A command's exit code and what it printed. */
    public record Result(int code, String out) {}

    private final Map<String, @Nullable String> saved = new LinkedHashMap<>();

    /** Sets these properties (as {@code -Dname=value} would) for the commands of this test. */
    public void pointAt(Map<String, ?> properties) {
        properties.forEach((k, v) -> {
            if (!saved.containsKey(k)) {
                saved.put(k, System.getProperty(k));
            }
            System.setProperty(k, String.valueOf(v));
        });
    }

    /** Runs a command line as the jar's main method does. */
    public Result run(String... args) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int code;
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            code = LensCommandLine.run(LensConsumerApplication.class, args, out);
        }
        String text = bytes.toString(StandardCharsets.UTF_8);
        System.out.println("$ java -jar lens-consumer-app-exec.jar " + String.join(" ", args) + "\n" + text);
        return new Result(code, text);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        saved.forEach((k, v) -> {
            if (v == null) {
                System.clearProperty(k);
            } else {
                System.setProperty(k, v);
            }
        });
        saved.clear();
    }
}
