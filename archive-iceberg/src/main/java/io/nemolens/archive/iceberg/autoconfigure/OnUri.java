package io.nemolens.archive.iceberg.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.StringUtils;

/** Matches when a property names something other than blanks ({@code lens.archive.catalog.uri}, the bucket's). */
abstract class OnUri extends SpringBootCondition {

    private final String property;

    OnUri(String property) {
        this.property = property;
    }

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        String uri = context.getEnvironment().getProperty(property);
        return StringUtils.hasText(uri)
                ? ConditionOutcome.match(property + " is set")
                : ConditionOutcome.noMatch(property + " is not set");
    }

    /** {@code lens.archive.catalog.uri} is set: the archive's files are appended to tables. */
    static final class Catalog extends OnUri {
        Catalog() {
            super("lens.archive.catalog.uri");
        }
    }

    /** {@code lens.archive.store.uri} is set: the files, and the tables, are in a bucket. */
    static final class Bucket extends OnUri {
        Bucket() {
            super("lens.archive.store.uri");
        }
    }
}
