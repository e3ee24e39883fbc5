package io.nemolens.benchmarks;

import com.rabbitmq.client.Channel;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ConnectionFactory;
import io.micrometer.core.instrument.MeterRegistry;
import io.nemolens.app.LensConsumerApplication;
import io.nemolens.archive.ParquetArchive;
import io.nemolens.archive.autoconfigure.LensArchiveProperties;
import io.nemolens.handlers.Encoding;
import io.nemolens.topology.LensTopology;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeoutException;
import org.springframework.amqp.rabbit.listener.SimpleMessageListenerContainer;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * One consumer of the bench: the service's application context (the consumer with the archive) on a topology
 * of its own (exchange, queue, poison queues, fresh names) and an archive folder of its own, for one target.
 * Its listener does not start by itself: the bench starts it for a warm-up or a measured run and stops it
 * after, so that with several targets only one consumer works at a time while the others stay open and idle.
 *
 * @param committedFiles where its committed files lie (the archive's folder, or the S3 server's folder of its
 *     prefix)
 */
record BenchConsumer(
        Target target,
        LensTopology topology,
        Path archiveFolder,
        Path committedFiles,
        ConnectionFactory factory,
        ConfigurableApplicationContext app)
        implements AutoCloseable {

    /**
     * Declares a fresh topology on the broker (through {@code ch}) and starts the application on it, its listener
     * stopped.
     *
     * @param stores the target's store and claim registry
     */
    static BenchConsumer start(
            Target target, int prefetch, int concurrency, ConnectionFactory factory, Channel ch, BenchStores stores)
            throws IOException {
        LensTopology topology = freshTopology("lens-bench");
        ch.exchangeDeclare(topology.exchangeName(), "topic", true);
        ch.exchangeDeclare(topology.deadLetterExchangeName(), "direct", true);
        ch.queueDeclare(topology.poisonQueueName(), true, false, false, topology.poisonQueueArguments());
        ch.queueDeclare(topology.parkingLotQueueName(), true, false, false, topology.parkingLotQueueArguments());
        ch.queueDeclare(topology.queueName(), true, false, false, topology.processingQueueArguments());
        ch.queueBind(topology.queueName(), topology.exchangeName(), "#");
        Path archiveFolder = Files.createTempDirectory("lens-bench-archive");

        Map<String, Object> props = serviceProperties(factory, topology);
        props.put("lens.consumer.auto-startup", "false");
        props.put("lens.consumer.prefetch", prefetch);
        // the bench's messages (1024 spans: a few hundred KB even as OTLP/JSON) are far below the 16MB
        // default; with this limit the measured prefetch fits the default lens.consumer.max-in-flight-bytes
        // (128MB) up to 32 per thread at concurrency 2
        props.put("lens.consumer.max-message-size", "2MB");
        props.put("lens.consumer.concurrency", concurrency);
        props.put("lens.archive.path", archiveFolder.toString());
        props.putAll(stores.properties(target));
        props.put("spring.main.banner-mode", "off");
        props.put("logging.level.root", "WARN");
        ConfigurableApplicationContext app;
        try {
            app = new SpringApplicationBuilder(LensConsumerApplication.class)
                    .web(WebApplicationType.NONE)
                    .properties(props)
                    .initializers(c ->
                            c.getBeanFactory().registerSingleton("benchAckLatencyHistogram", AckLatency.histogram()))
                    .run();
        } catch (RuntimeException e) {
            try {
                deleteTopology(factory, topology);
            } finally {
                ArchiveFiles.delete(archiveFolder);
            }
            throw e;
        }
        return new BenchConsumer(
                target, topology, archiveFolder, stores.committedFiles(target, archiveFolder), factory, app);
    }

    /** A topology of fresh names, {@code <prefix>.<random>.raw}, {@code ...-processing} and so on. */
    static LensTopology freshTopology(String prefix) {
        String id = prefix + "." + UUID.randomUUID().toString().substring(0, 8);
        return LensTopology.builder()
                .exchange(id + ".raw")
                .deadLetterExchange(id + ".dead")
                .queue(id + "-processing")
                .poisonQueue(id + "-poison")
                .parkingLotQueue(id + "-poison.parking-lot")
                .build();
    }

    /** The service's properties that point it at the broker of {@code factory} and at {@code topology}. */
    static Map<String, Object> serviceProperties(ConnectionFactory factory, LensTopology topology) {
        Map<String, Object> props = new LinkedHashMap<>();
        props.put("spring.rabbitmq.host", factory.getHost());
        props.put("spring.rabbitmq.port", factory.getPort());
        props.put("spring.rabbitmq.username", factory.getUsername());
        props.put("spring.rabbitmq.password", factory.getPassword());
        props.put("spring.rabbitmq.virtual-host", factory.getVirtualHost());
        props.put("lens.topology.exchange", topology.exchangeName());
        props.put("lens.topology.dead-letter-exchange", topology.deadLetterExchangeName());
        props.put("lens.topology.queue", topology.queueName());
        props.put("lens.topology.poison-queue", topology.poisonQueueName());
        props.put("lens.topology.parking-lot-queue", topology.parkingLotQueueName());
        return props;
    }

    MeterRegistry meters() {
        return app.getBean(MeterRegistry.class);
    }

    SimpleMessageListenerContainer container() {
        return app.getBean(SimpleMessageListenerContainer.class);
    }

    ParquetArchive archive() {
        return app.getBean(ParquetArchive.class);
    }

    LensArchiveProperties archiveProperties() {
        return app.getBean(LensArchiveProperties.class);
    }

    /** Publishes messages {@code from} to {@code to} (exclusive) to its exchange; returns the bytes published. */
    long fill(Channel ch, Encoding encoding, BenchSettings settings, int from, int to) throws Exception {
        return BenchPublishing.fill(ch, topology, encoding, settings, from, to);
    }

    /** The messages it acknowledged so far (all signals). */
    double acked() {
        return ArchiveWaits.acked(meters());
    }

    /**
     * Waits until {@code count} messages more than {@code acked0} are acknowledged, ending the bench if its
     * archive's store or claim registry fails meanwhile; fails 5 minutes after {@code t0}, naming {@code what}.
     */
    void awaitAcked(double acked0, long count, long t0, String what) throws InterruptedException {
        ArchiveWaits.awaitAcked(meters(), acked0, count, archive(), t0, what);
    }

    /**
     * Commits the files its archive has open now, not when max-age would, and waits until every row it took is
     * in a committed file (with an object store, a file is committed once its upload returned).
     */
    void commitAll(long t0) throws InterruptedException {
        ParquetArchive archive = archive();
        archive.commitNow();
        ArchiveWaits.awaitCommitted(archive, t0);
    }

    /** Closes the application, deletes its topology from the broker and its archive folder. */
    @Override
    public void close() throws IOException {
        try {
            app.close();
        } finally {
            try {
                deleteTopology(factory, topology);
            } finally {
                ArchiveFiles.delete(archiveFolder);
            }
        }
    }

    private static void deleteTopology(ConnectionFactory factory, LensTopology topology) throws IOException {
        try (Connection connection = factory.newConnection("lens-bench-cleanup");
                Channel ch = connection.createChannel()) {
            ch.queueDelete(topology.queueName());
            ch.queueDelete(topology.poisonQueueName());
            ch.queueDelete(topology.parkingLotQueueName());
            ch.queueDelete(topology.poisonIndexName());
            ch.exchangeDelete(topology.exchangeName());
            ch.exchangeDelete(topology.deadLetterExchangeName());
        } catch (TimeoutException e) {
            throw new IOException("connecting to the broker to delete " + topology.queueName(), e);
        }
    }
}
