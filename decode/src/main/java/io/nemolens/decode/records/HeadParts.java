package io.nemolens.decode.records;

import io.nemolens.handlers.record.Attributes;
import io.nemolens.handlers.record.ResourceInfo;
import io.nemolens.handlers.record.ScopeInfo;

/**
 * What the head of a group is made of, its resource or its instrumentation scope, gathered field by field as a
 * reader comes upon them, and the one construction of a {@link ResourceInfo} and a {@link ScopeInfo} for every
 * reader: the shared {@code EMPTY} record when the head has nothing. A resource has no name or version. Not
 * thread-safe: one reader fills one instance.
 */
public final class HeadParts extends AttributedParts {

    private String name = "";
    private String version = "";

    public void name(String name) {
        this.name = name;
    }

    public void version(String version) {
        this.version = version;
    }

    /** The head as a resource, with its group's schema URL. */
    public ResourceInfo resource(String schemaUrl) {
        return resource(builtAttributes(), droppedAttributes(), schemaUrl);
    }

    /** The head as an instrumentation scope, with its group's schema URL. */
    public ScopeInfo scope(String schemaUrl) {
        return scope(name, version, builtAttributes(), droppedAttributes(), schemaUrl);
    }

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
