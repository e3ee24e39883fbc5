package io.nemolens.app.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The check of the shipped jars finds what it looks for, in a jar and in a jar nested in it. */
class ShippedJarsTest {

    @TempDir
    Path dir;

    /** A class that halts, as the archive's crash point did. */
    static final class Halts {
        static final String ARMED = System.getProperty("lens.archive.test.crash-at", "");

        static void pass() {
            if (!ARMED.isEmpty()) {
                Runtime.getRuntime().halt(137);
            }
        }
    }

    /** A class that halts, as the consumer does on an out-of-memory error. */
    static final class HaltsOnOutOfMemory {
        static void halt() {
            Runtime.getRuntime().halt(3);
        }
    }

    @Test
    void aHaltACrashPointAndAnApplicationYmlAreFoundNestedOrNot() throws IOException {
        byte[] halts = classFile(Halts.class);
        byte[] nested = jar(Map.of(
                "io/nemolens/archive/Halts.class",
                halts,
                "application.properties",
                "a=b".getBytes(StandardCharsets.UTF_8)));
        Path exec = write(
                "app-exec.jar",
                Map.of(
                        "BOOT-INF/classes/application.yml", "a: b".getBytes(StandardCharsets.UTF_8),
                        "BOOT-INF/classes/io/nemolens/app/Halts.class", halts,
                        "BOOT-INF/lib/lens-archive.jar", nested));

        assertThat(ShippedJars.violations(exec))
                .containsExactlyInAnyOrder(
                        "app-exec.jar!BOOT-INF/classes/application.yml: application configuration, which shadows an"
                                + " application's own",
                        "app-exec.jar!BOOT-INF/classes/io/nemolens/app/Halts.class: calls Runtime.halt",
                        "app-exec.jar!BOOT-INF/classes/io/nemolens/app/Halts.class: refers to crash-at",
                        "app-exec.jar!BOOT-INF/lib/lens-archive.jar!io/nemolens/archive/Halts.class: calls Runtime.halt",
                        "app-exec.jar!BOOT-INF/lib/lens-archive.jar!io/nemolens/archive/Halts.class: refers to crash-at",
                        "app-exec.jar!BOOT-INF/lib/lens-archive.jar!application.properties: application configuration,"
                                + " which shadows an application's own");
    }

    @Test
    void theConsumersOutOfMemoryHaltAndOtherLibrariesClassesPass() throws IOException {
        byte[] halts = classFile(Halts.class);
        Path plain = write(
                "lens-consumer.jar",
                Map.of(
                        "io/nemolens/consumer/error/OutOfMemoryHalt.class",
                        classFile(HaltsOnOutOfMemory.class),
                        "org/example/Halts.class",
                        halts));
        assertThat(ShippedJars.violations(plain)).isEmpty();
    }

    private Path write(String name, Map<String, byte[]> entries) throws IOException {
        Path jar = dir.resolve(name);
        Files.write(jar, jar(entries));
        return jar;
    }

    private static byte[] jar(Map<String, byte[]> entries) throws IOException {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ZipOutputStream zip = new ZipOutputStream(bytes)) {
            for (Map.Entry<String, byte[]> e : entries.entrySet()) {
                zip.putNextEntry(new ZipEntry(e.getKey()));
                zip.write(e.getValue());
                zip.closeEntry();
            }
        }
        return bytes.toByteArray();
    }

    private static byte[] classFile(Class<?> type) throws IOException {
        String resource = type.getName().substring(type.getPackageName().length() + 1) + ".class";
        try (InputStream in = Objects.requireNonNull(type.getResourceAsStream(resource), resource)) {
            return in.readAllBytes();
        }
    }
}
