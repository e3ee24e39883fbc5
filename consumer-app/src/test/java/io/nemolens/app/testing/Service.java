package io.nemolens.app.testing;

import io.nemolens.app.LensConsumerApplication;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.RunningConsumer;
import io.nemolens.testing.TestTopology;
import java.util.Map;

/** The service as deployed ({@link LensConsumerApplication}), started in this JVM for a test. */
public final class Service {

    private Service() {}

    /** The extension that starts the service, with these configuration classes (handlers), for each test. */
    public static ConsumerExtension extension(Class<?>... configuration) {
        return ConsumerExtension.of(LensConsumerApplication.class).with(configuration);
    }

    /** Starts the service with these properties and configuration classes (handlers). */
    public static RunningConsumer start(
            TestTopology topology, Map<String, Object> properties, Class<?>... configuration) {
        Class<?>[] sources = new Class<?>[configuration.length + 1];
        sources[0] = LensConsumerApplication.class;
        System.arraycopy(configuration, 0, sources, 1, configuration.length);
        return RunningConsumer.start(topology, properties, sources);
    }
}
