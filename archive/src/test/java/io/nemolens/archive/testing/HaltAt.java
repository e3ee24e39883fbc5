package io.nemolens.archive.testing;

import io.nemolens.archive.CommitListener;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.core.env.Environment;

/**
 * A crash test's fault, from test scope: the archive's {@link CommitListener} that halts the process (exit code
 * 137, as a SIGKILL leaves it: no shutdown hook, no flush) the n-th time the archive passes one moment of its
 * commit path. The moments, by the names the crash tests use:
 *
 * <ul>
 *   <li>{@code before-ack}: a message is durable in the spool; its acknowledgement has not reached the broker;
 *   <li>{@code before-claim}: a batch of messages is durable in the spool; their ids are not claimed yet;
 *   <li>{@code after-publish}: the store took a file; the archive has not released its spool entries (or, with
 *       tables, not appended it to its table);
 *   <li>{@code after-append}: with tables, a wave of files is in its tables; the archive has not released their spool
 *       entries.
 * </ul>
 *
 * A test puts the archive's test-jar on the class path of the service it starts ({@link #classPath()}; the shipped
 * jars hold none of this) and starts it with {@link #armedAt}'s properties: the application then has this class as
 * one more source ({@code spring.main.sources}), armed by {@value #ARMING}. It says {@code halting at <moment>} on
 * standard error before it halts.
 */
public final class HaltAt implements CommitListener {

    /** The property that arms it: {@code <moment>:<n>}. */
    public static final String ARMING = "test.halt-at";

    /** The moments, in the order a message meets them. */
    public static final List<String> MOMENTS = List.of("before-ack", "before-claim", "after-publish", "after-append");

    private final String moment;
    private final int at;
    private final AtomicInteger passes = new AtomicInteger();

    public HaltAt(Environment environment) {
        String arming = environment.getRequiredProperty(ARMING);
        int colon = arming.indexOf(':');
        moment = colon < 0 ? "" : arming.substring(0, colon);
        if (!MOMENTS.contains(moment)) {
            throw new IllegalArgumentException(
                    ARMING + "=" + arming + ": not <moment>:<n> with a moment of " + MOMENTS);
        }
        at = Integer.parseInt(arming.substring(colon + 1).strip());
    }

    /** The application properties that arm it at the {@code n}-th pass of {@code moment} ({@code <moment>:<n>}). */
    public static Map<String, String> armedAt(String arming) {
        return Map.of("spring.main.sources", HaltAt.class.getName(), ARMING, arming);
    }

    /** Where this class is loaded from (the archive's test-jar, or its test classes): for a child JVM's class path. */
    public static Path classPath() {
        try {
            return Path.of(HaltAt.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void durable(String messageId) {
        pass("before-ack");
    }

    @Override
    public void claiming(List<String> messageIds) {
        pass("before-claim");
    }

    @Override
    public void published(String name) {
        pass("after-publish");
    }

    @Override
    public void appended(List<String> names) {
        pass("after-append");
    }

    private void pass(String passed) {
        if (passed.equals(moment) && passes.incrementAndGet() == at) {
            System.err.println(ARMING + ": halting at " + moment + " (pass " + at + ")");
            System.err.flush();
            Runtime.getRuntime().halt(137);
        }
    }

    @Override
    public String toString() {
        return "HaltAt[" + moment + ":" + at + "]";
    }
}
