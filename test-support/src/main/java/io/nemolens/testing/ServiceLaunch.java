package io.nemolens.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * How {@link ConsumerProcess} starts the service's exec jar quickly: the jar extracted as Spring Boot's own
 * {@code java -Djarmode=tools -jar JAR extract} lays it out (the same classes, on a plain class path instead of
 * nested jars), with a class-data archive ({@code -XX:SharedArchiveFile}) trained once per {@code java} by a run
 * that stops when the application context is refreshed, and the client compiler only
 * ({@code -XX:TieredStopAtLevel=1}). Measured on a 2-core machine: an idle start of 12.7 s down to 3.9 s, and a
 * restart beside two loaded instances (ScaleOutIT) from 37-62 s down to 10-23 s; the tests start dozens.
 *
 * <p>The jar itself, as users run it, is what {@link JarRun} starts (the command tests). A {@code java} that cannot
 * write the archive still starts the extracted jar, without it (said on standard error).
 */
final class ServiceLaunch {

    private static final Duration TRAINING_TIMEOUT = Duration.ofMinutes(3);
    /** The client compiler only: the tests' services run for seconds to minutes, and start beside each other. */
    private static final String C1_ONLY = "-XX:TieredStopAtLevel=1";

    private static final Map<Path, ServiceLaunch> PREPARED = new HashMap<>();

    private final Path jar;
    private final String mainClass;
    private final List<String> options;

    private ServiceLaunch(Path jar, String mainClass, List<String> options) {
        this.jar = jar;
        this.mainClass = mainClass;
        this.options = List.copyOf(options);
    }

    /** The launch of {@code execJar} by the tests' {@code java}, prepared at the first call (extract, train). */
    static synchronized ServiceLaunch of(Path execJar) throws IOException {
        ServiceLaunch launch = PREPARED.get(execJar);
        if (launch == null) {
            try {
                launch = prepare(execJar);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while preparing the start of " + execJar, e);
            }
            PREPARED.put(execJar, launch);
        }
        return launch;
    }

    /** The extracted jar to run with {@code -jar}. */
    Path jar() {
        return jar;
    }

    /**
     * The main class of the extracted jar, for a start with more on the class path than the jar (its manifest's
     * {@code Class-Path} still brings its libraries): {@code java -cp JAR:MORE MAIN}.
     */
    String mainClass() {
        return mainClass;
    }

    /** The JVM options that go before {@code -jar}. */
    List<String> options() {
        return options;
    }

    private static ServiceLaunch prepare(Path execJar) throws IOException, InterruptedException {
        // one folder per jar build and java: the archive is only valid for the JVM that wrote it
        String key = Integer.toHexString((ChildJvm.javaBinary() + "|"
                        + Files.getLastModifiedTime(execJar).toMillis() + "|" + Files.size(execJar))
                .hashCode());
        Path dir = execJar.toAbsolutePath().resolveSibling("service-launch").resolve(key);
        Path extracted = dir.resolve("app");
        Path jar = extracted.resolve(execJar.getFileName());
        if (!Files.isRegularFile(jar)) {
            Path staging = Files.createDirectories(dir).resolve("app.partial");
            Folders.deleteTree(staging);
            JarRun.Outcome extract = JarRun.run(
                    ChildJvm.jar(execJar)
                            .options(List.of("-Djarmode=tools"))
                            .args(List.of("extract", "--destination", staging.toString())),
                    TRAINING_TIMEOUT);
            if (!extract.exited()
                    || extract.exitCode() != 0
                    || !Files.isRegularFile(staging.resolve(execJar.getFileName()))) {
                throw new IllegalStateException(
                        "could not extract " + execJar + " (exit " + extract.exitCode() + "):\n" + extract.output());
            }
            Folders.deleteTree(extracted);
            Files.move(staging, extracted, StandardCopyOption.ATOMIC_MOVE);
        }
        List<String> options = new ArrayList<>(List.of(C1_ONLY));
        Path archive = dir.resolve("service.jsa");
        if (!Files.isRegularFile(archive)) {
            train(jar, dir, archive);
        }
        if (Files.isRegularFile(archive)) {
            options.add("-XX:SharedArchiveFile=" + archive);
        }
        return new ServiceLaunch(jar, mainClass(jar), options);
    }

    private static String mainClass(Path jar) throws IOException {
        try (JarFile file = new JarFile(jar.toFile())) {
            Manifest manifest = file.getManifest();
            String main = manifest == null ? null : manifest.getMainAttributes().getValue(Attributes.Name.MAIN_CLASS);
            if (main == null) {
                throw new IllegalStateException("the extracted jar " + jar + " names no Main-Class");
            }
            return main;
        }
    }

    /** One start of the service that stops once its context is refreshed, writing the classes it loaded. */
    private static void train(Path jar, Path dir, Path archive) throws IOException, InterruptedException {
        Path work = Files.createTempDirectory(dir, "training");
        Path partial = dir.resolve("service.jsa.partial");
        Files.deleteIfExists(partial);
        try {
            JarRun.Outcome run = JarRun.run(
                    ChildJvm.jar(jar)
                            .options(List.of(
                                    C1_ONLY, "-XX:ArchiveClassesAtExit=" + partial, "-Dspring.context.exit=onRefresh"))
                            .args(List.of(
                                    "--server.port=0",
                                    "--lens.archive.path=" + work.resolve("archive"),
                                    "--lens.archive.spool.path=" + work.resolve("spool")))
                            .workingDir(work),
                    TRAINING_TIMEOUT);
            if (run.exited() && run.exitCode() == 0 && Files.isRegularFile(partial)) {
                Files.move(partial, archive, StandardCopyOption.ATOMIC_MOVE);
            } else {
                System.err.println("ServiceLaunch: no class-data archive for " + ChildJvm.javaBinary() + " (exit "
                        + run.exitCode() + "); the service starts without one. Its output:\n" + run.output());
            }
        } finally {
            Folders.deleteTree(work);
        }
    }
}
