package io.nemolens.testing;

import java.io.IOException;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.TypeExcludeFilter;
import org.springframework.core.type.classreading.MetadataReader;
import org.springframework.core.type.classreading.MetadataReaderFactory;

/**
 * Keeps the application's component scan away from our own test classes: without it, every
 * {@code @Configuration} of every test (handlers that fail, defer or record) would join every test's
 * consumer. Such a class takes part only when the test passes it as a source (with its nested
 * classes). Example user code outside {@code io.nemolens} is scanned by its own application as usual.
 */
final class OnlyGivenTestClasses extends TypeExcludeFilter {

    private final Set<String> given;

    OnlyGivenTestClasses(Class<?>... sources) {
        this.given = Arrays.stream(sources).map(Class::getName).collect(Collectors.toUnmodifiableSet());
    }

    @Override
    public boolean match(MetadataReader reader, MetadataReaderFactory factory) throws IOException {
        String name = reader.getClassMetadata().getClassName();
        if (!name.startsWith("io.nemolens.")
                || !reader.getResource().getURI().toString().contains("/test-classes/")) {
            return false;
        }
        return given.stream().noneMatch(source -> name.equals(source) || name.startsWith(source + "$"));
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof OnlyGivenTestClasses o && given.equals(o.given);
    }

    @Override
    public int hashCode() {
        return given.hashCode();
    }
}
