package io.nemolens.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.properties.HasModifiers;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import org.jspecify.annotations.NullMarked;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;

/**
 * The rules that keep the modules apart, checked on the main classes of every module with main code
 * ({@code handlers}, {@code decode}, {@code topology}, {@code spool}, {@code dedup}, {@code archive}, {@code claims}, {@code archive-s3},
 * {@code archive-iceberg}, {@code generator},
 * {@code consumer}, {@code poison}, {@code console}, {@code consumer-app}, {@code test-support},
 * {@code benchmarks} and both {@code samples}): it lives in {@code architecture}, the one module downstream of
 * all of them. Each rule fails the build when broken, with the offending dependency named.
 */
class ArchitectureTest {

    private static JavaClasses main;

    @BeforeAll
    static void importMainClasses() {
        // the other modules come as folders (an IDE, mvn test) or as jars (mvn verify): both are main
        // classes, but not their test classes or test-jars
        main = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.contains("-tests.jar"))
                // what JMH's annotation processor generates into the benchmarks is not ours to rule
                .withImportOption(location -> !location.contains("/jmh_generated/"))
                .importPackages("io.nemolens", "com.example.lens");
    }

    /** Every module's main classes were found (a rule over no classes would pass for nothing). */
    @Test
    void everyModuleIsChecked() {
        for (String pkg : new String[] {
            "io.nemolens.handlers",
            "io.nemolens.decode",
            "io.nemolens.topology",
            "io.nemolens.archive",
            "io.nemolens.archive.spool",
            "io.nemolens.archive.dedup",
            "io.nemolens.claims",
            "io.nemolens.archive.s3",
            "io.nemolens.archive.iceberg",
            "io.nemolens.generator",
            "io.nemolens.consumer",
            "io.nemolens.poison",
            "io.nemolens.console",
            "io.nemolens.runwatch",
            "io.nemolens.app",
            "io.nemolens.testing",
            "io.nemolens.benchmarks",
            "com.example.lens",
            "com.example.lens.archived"
        }) {
            org.assertj.core.api.Assertions.assertThat(main.containPackage(pkg))
                    .as("main classes of %s imported", pkg)
                    .isTrue();
        }
    }

    @Test
    void noPackageCycles() {
        slices().matching("io.nemolens.(**)").should().beFreeOfCycles().check(main);
    }

    /** A handler author's classpath stays small: the SPI uses the JDK, protobuf, the OTLP messages and JSpecify. */
    @Test
    void theSpiDependsOnNoFramework() {
        classes()
                .that()
                .resideInAPackage("io.nemolens.handlers..")
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage(
                        "io.nemolens.handlers..",
                        "java..",
                        "com.google.protobuf..",
                        "io.opentelemetry.proto..",
                        "org.jspecify.annotations..")
                .because("the SPI is what handler authors compile against: no Spring, Parquet, Hadoop or codecs")
                .check(main);
    }

    @Test
    void decodingKnowsNothingOfAmqpOrSpring() {
        noClasses()
                .that()
                .resideInAPackage("io.nemolens.decode..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("com.rabbitmq..", "org.springframework..", "io.nemolens.consumer..")
                .because("decoding is bytes to records, used by the consumer and the archive alike")
                .check(main);
    }

    /** The decoder's root is its public face, over its sub-packages: they never use it, whatever they are. */
    @Test
    void decodingsSubPackagesNeverUseItsRoot() {
        noClasses()
                .that()
                .resideInAPackage("io.nemolens.decode..")
                .and()
                .resideOutsideOfPackage("io.nemolens.decode")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.nemolens.decode")
                .because("the root assembles the readers (OtlpDecoder) and turns their failures into DecodeException;"
                        + " what the readers share lives in io.nemolens.decode.records")
                .check(main);
    }

    /**
     * The direct span readers and the reference reader are two readings of the same bytes, each checked against the
     * other by the decoder's tests: they share only {@code io.nemolens.decode.records}.
     */
    @Test
    void theDirectAndTheReferenceReadersDoNotUseEachOther() {
        noClasses()
                .that()
                .resideInAPackage("io.nemolens.decode.direct..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.nemolens.decode.reference..")
                .because("a direct reader leaves what is not its common case to the decoder, which reads it the"
                        + " reference way; what both need is in io.nemolens.decode.records")
                .check(main);
        noClasses()
                .that()
                .resideInAPackage("io.nemolens.decode.reference..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.nemolens.decode.direct..")
                .because("the reference reads every body without the direct readers, so that they can be checked"
                        + " against it")
                .check(main);
    }

    @Test
    void theLibrariesReachTheArchiveOnlyThroughTheSpi() {
        noClasses()
                .that()
                .resideInAnyPackage(
                        "io.nemolens.handlers..",
                        "io.nemolens.decode..",
                        "io.nemolens.topology..",
                        "io.nemolens.consumer..",
                        "io.nemolens.poison..",
                        "io.nemolens.console..",
                        "io.nemolens.app..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.nemolens.archive..")
                .because("an application can leave the archive out or replace it")
                .check(main);
    }

    /**
     * The archive's public face is its root package's public types and its auto-configuration, its extension
     * points the {@code store}, {@code claims} and {@code table} SPIs; the rest (spool, de-duplication, Parquet writing, commit)
     * is its inside. Outside is every class that the archive's module does not hold, whatever its package:
     * {@code archive-s3} lives in {@code io.nemolens.archive.s3}, the claim registry in {@code io.nemolens.claims},
     * and the Iceberg tables' in {@code io.nemolens.archive.iceberg}: each is held to the same face.
     */
    @Test
    void nothingOutsideTheArchiveModuleReachesIntoIt() {
        DescribedPredicate<JavaClass> ofTheArchiveModule = heldByTheModuleOf("io.nemolens.archive.ParquetArchive");
        DescribedPredicate<JavaClass> theArchiveFace = JavaClass.Predicates.resideInAPackage("io.nemolens.archive")
                .and(HasModifiers.Predicates.modifier(JavaModifier.PUBLIC))
                .or(JavaClass.Predicates.resideInAnyPackage(
                        "io.nemolens.archive.autoconfigure",
                        "io.nemolens.archive.compaction",
                        "io.nemolens.archive.store",
                        "io.nemolens.archive.claims",
                        "io.nemolens.archive.table"));
        noClasses()
                .that(DescribedPredicate.not(ofTheArchiveModule).as("are not held by the archive's module"))
                .should()
                .dependOnClassesThat(ofTheArchiveModule
                        .and(DescribedPredicate.not(theArchiveFace))
                        .as("are the archive's inside (anything but its root package's public types, autoconfigure,"
                                + " the compactor, the store, claims and table SPIs)"))
                .because("benchmarks, samples, archive-s3, the claim registry and any extension module use the"
                        + " archive's public face and its extension points")
                .check(main);
    }

    /**
     * The classes of the module (jar or classes folder) that holds {@code anchor}: a class's location is its
     * source's URI without the class file's own path inside the jar or folder.
     */
    private static DescribedPredicate<JavaClass> heldByTheModuleOf(String anchor) {
        String module = location(main.get(anchor));
        return DescribedPredicate.describe(
                "are held by the module of " + anchor, c -> location(c).equals(module));
    }

    private static String location(JavaClass c) {
        String own = c.getName().replace('.', '/') + ".class";
        String uri = c.getSource().map(s -> s.getUri().toString()).orElse("");
        return uri.endsWith(own) ? uri.substring(0, uri.length() - own.length()) : uri;
    }

    /**
     * The archive's Parquet writing is the floor the commit path and the compactor stand on: it names neither, nor the
     * archive's face.
     */
    @Test
    void theParquetWritingNamesNeitherTheCommitPathNorTheCompactor() {
        noClasses()
                .that()
                .resideInAPackage("io.nemolens.archive.parquet..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.nemolens.archive", "io.nemolens.archive.commit..", "io.nemolens.archive.compaction..")
                .because("the commit path and the compactor use the writer, never the reverse")
                .check(main);
    }

    /**
     * The commit path stands below the archive's face: {@code ParquetArchive} and {@code ArchiveParts} use it, and it
     * names none of them (status and listeners reach it as plain values and callbacks).
     */
    @Test
    void theCommitPathDoesNotNameTheArchivesFace() {
        noClasses()
                .that()
                .resideInAPackage("io.nemolens.archive.commit..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.nemolens.archive", "io.nemolens.archive.compaction..")
                .because("the face assembles the commit path, never the reverse")
                .check(main);
    }

    @Test
    void theConsumerLibraryDoesNotReachTheToolsOrTheApplication() {
        noClasses()
                .that()
                .resideInAPackage("io.nemolens.consumer..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.nemolens.poison..", "io.nemolens.console..", "io.nemolens.app..")
                .because("the library is what a user's application depends on: tools and the application build on it")
                .check(main);
    }

    @Test
    void theArchiveDoesNotReachIntoTheConsumer() {
        noClasses()
                .that()
                .resideInAPackage("io.nemolens.archive..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.nemolens.consumer..", "io.nemolens.generator..", "com.rabbitmq..")
                .check(main);
    }

    @Test
    void theConsumerDoesNotShipTheGenerator() {
        noClasses()
                .that()
                .resideOutsideOfPackages("io.nemolens.generator..", "io.nemolens.benchmarks..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.nemolens.generator..")
                .because("the generator is a runnable and test data (the benchmarks' too), not part of the consumer")
                .check(main);
    }

    @Test
    void theRunWatchIsWrittenAgainstTheHandlerSpi() {
        noClasses()
                .that()
                .resideInAPackage("io.nemolens.runwatch")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.nemolens.consumer..",
                        "io.nemolens.decode..",
                        "io.nemolens.archive..",
                        "io.nemolens.poison..",
                        "org.springframework..",
                        "io.micrometer..",
                        "com.rabbitmq..")
                .because("the watch is ordinary handlers over the SPI's records (its Spring glue and meters live in"
                        + " runwatch.autoconfigure), an example users can copy")
                .check(main);
        noClasses()
                .that()
                .resideOutsideOfPackages("io.nemolens.runwatch..", "io.nemolens.console..", "io.nemolens.benchmarks..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.nemolens.runwatch..")
                .because(
                        "only the console's Runs pages (and the bench) read the watch: an application can leave it out")
                .check(main);
    }

    @Test
    void nothingReachesIntoTheConsole() {
        noClasses()
                .that()
                .resideOutsideOfPackage("io.nemolens.console..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.nemolens.console..")
                .because("the console is a leaf: an application can leave it out")
                .check(main);
    }

    @Test
    void theConsoleReachesTheArchiveOnlyThroughItsMeters() {
        noClasses()
                .that()
                .resideInAPackage("io.nemolens.console..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.nemolens.archive..", "io.nemolens.generator..")
                .because("the console shows what /actuator/prometheus and /actuator/health show: one source of truth")
                .check(main);
    }

    @Test
    void autoConfigurationsAreFinal() {
        classes()
                .that()
                .areAnnotatedWith(AutoConfiguration.class)
                .should()
                .haveModifier(JavaModifier.FINAL)
                .check(main);
    }

    /** An application replaces any of our beans by defining its own (by type, or by name where the type is common). */
    @Test
    void everyAutoConfiguredBeanBacksOff() {
        methods()
                .that()
                .areAnnotatedWith(Bean.class)
                .and()
                .areDeclaredInClassesThat()
                .resideInAPackage("io.nemolens..")
                .should()
                .beAnnotatedWith(ConditionalOnMissingBean.class)
                .check(main);
    }

    @Test
    void everyPackageStatesNullness() {
        ArchRule rule = classes().that().resideInAPackage("io.nemolens..").should(beInANullMarkedPackage());
        rule.check(main);
    }

    private static ArchCondition<JavaClass> beInANullMarkedPackage() {
        return new ArchCondition<>("be in a package annotated @NullMarked (package-info.java)") {
            @Override
            public void check(JavaClass item, ConditionEvents events) {
                boolean marked = item.getPackage().isAnnotatedWith(NullMarked.class);
                if (!marked) {
                    events.add(SimpleConditionEvent.violated(
                            item,
                            "package " + item.getPackageName() + " of " + item.getName() + " is not @NullMarked"));
                }
            }
        };
    }
}
