package io.nemolens.app.packaging;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.generator.GeneratorApplication;
import io.nemolens.testing.ConsumerProcess;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;

/**
 * The jars as built, read byte by byte ({@link ShippedJars}): the service's exec jar with every jar in it, this
 * module's plain jar, the generator's plain and exec jars, and the plain jar of each of the service's library
 * modules in its {@code target/} folder (where the other modules' tests take it from). No test hook (a crash
 * point, {@code Runtime.halt} but the out-of-memory halt), and no {@code application.yml} or
 * {@code application.properties} at all: the service's defaults are {@code io/nemolens/app/service.yml}, read for
 * the service alone ({@code ServiceDefaults}), the generator's are in code. The crash tests' faults come from test scope
 * ({@code io.nemolens.archive.testing.HaltAt} in the archive's test-jar).
 */
class ShippedJarsIT {

    @Test
    void noJarHoldsATestHookOrAStrayApplicationYml() throws Exception {
        Path serviceExec = ConsumerProcess.serviceJar();
        Path generatorPlain = codeSource(GeneratorApplication.class);
        assertThat(generatorPlain.getFileName().toString())
                .as("the generator's plain jar (run the reactor to its package phase)")
                .endsWith(".jar");
        Path generatorExec = generatorPlain.resolveSibling(
                generatorPlain.getFileName().toString().replaceFirst("\\.jar$", "-exec.jar"));

        List<String> violations = new ArrayList<>();
        List<Path> scanned = new ArrayList<>();
        violations.addAll(ShippedJars.violations(serviceExec));
        violations.addAll(ShippedJars.violations(generatorExec));
        violations.addAll(ShippedJars.violations(generatorPlain));
        scanned.addAll(List.of(serviceExec, generatorExec, generatorPlain));
        // this module's plain jar is the service too (the benchmarks start it from there)
        Path servicePlain = Path.of("target")
                .resolve(serviceExec.getFileName().toString().replaceFirst("-exec\\.jar$", ".jar"))
                .toAbsolutePath();
        violations.addAll(ShippedJars.violations(servicePlain));
        scanned.add(servicePlain);
        for (Path library : libraryJars(serviceExec)) {
            violations.addAll(ShippedJars.violations(library));
            scanned.add(library);
        }

        assertThat(scanned).as("the jars read").hasSizeGreaterThanOrEqualTo(10).allMatch(Files::isRegularFile);
        assertThat(violations).as("in %s", scanned).isEmpty();
    }

    /** The plain jars, in their modules' {@code target/}, of the lens-* libraries the service's exec jar holds. */
    private static List<Path> libraryJars(Path serviceExec) throws IOException {
        Path root = Path.of("").toAbsolutePath().getParent();
        List<Path> jars = new ArrayList<>();
        try (ZipFile exec = new ZipFile(serviceExec.toFile())) {
            List<String> names = exec.stream()
                    .map(ZipEntry::getName)
                    .filter(n -> n.startsWith("BOOT-INF/lib/lens-"))
                    .map(n -> n.substring("BOOT-INF/lib/".length()))
                    .toList();
            assertThat(names).as("the service's libraries").isNotEmpty();
            for (String name : names) {
                String module = name.substring("lens-".length()).replaceFirst("-\\d.*$", "");
                jars.add(root.resolve(module).resolve("target").resolve(name));
            }
        }
        return jars;
    }

    private static Path codeSource(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }
}
