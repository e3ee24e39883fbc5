package io.nemolens.app.testing;

import io.nemolens.app.LensConsumerApplication;
import io.nemolens.testing.ConsumerExtension;

/** The service ({@link LensConsumerApplication}) for a test: started in this JVM, or as its executable jar. */
public final class Service {

    private Service() {}

    /**
     * The extension that starts the service with these configuration classes (handlers) for each test (see
     * {@link ConsumerExtension}; its {@code startProcess} starts the service's executable jar instead).
     */
    public static ConsumerExtension extension(Class<?>... configuration) {
        return ConsumerExtension.of(LensConsumerApplication.class).with(configuration);
    }
}
