package io.nemolens.archive.s3.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.StringUtils;

/** Matches when {@code lens.archive.store.uri} is set to something other than blanks. */
final class OnStoreUri extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        String uri = context.getEnvironment().getProperty("lens.archive.store.uri");
        return StringUtils.hasText(uri)
                ? ConditionOutcome.match("lens.archive.store.uri is " + uri)
                : ConditionOutcome.noMatch("lens.archive.store.uri is empty: the archive's local folder");
    }
}
