package io.nemolens.decode.records;

import io.nemolens.handlers.record.Attributes;
import io.nemolens.handlers.record.ResourceInfo;
import io.nemolens.handlers.record.ScopeInfo;

/**
 * The one construction of a group's head, its {@link ResourceInfo} or {@link ScopeInfo}, for every reader: the shared
 * {@code EMPTY} record when the head has nothing.
 */
public final class HeadParts {

    private HeadParts() {}

    /** The resource of a group, as every reader makes it: {@link ResourceInfo#EMPTY} when it has nothing. */
    public static ResourceInfo resource(Attributes attributes, int droppedAttributesCount, String schemaUrl) {
        if (attributes.isEmpty() && droppedAttributesCount == 0 && schemaUrl.isEmpty()) {
            return ResourceInfo.EMPTY;
        }
        return new ResourceInfo(attributes, droppedAttributesCount, schemaUrl);
    }

    /** The instrumentation scope of a group, as every reader makes it: {@link ScopeInfo#EMPTY} when it has nothing. */
    public static ScopeInfo scope(
            String name, String version, Attributes attributes, int droppedAttributesCount, String schemaUrl) {
        if (attributes.isEmpty()
                && droppedAttributesCount == 0
                && schemaUrl.isEmpty()
                && name.isEmpty()
                && version.isEmpty()) {
            return ScopeInfo.EMPTY;
        }
        return new ScopeInfo(name, version, attributes, droppedAttributesCount, schemaUrl);
    }
}
