package io.nemolens.archive;

import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The archive's {@link CommitListener}s as one, each told in turn; what one throws is logged, not passed on. */
final class CommitListeners implements CommitListener {

    private static final Logger log = LoggerFactory.getLogger(CommitListeners.class);

    private final List<CommitListener> listeners;

    private CommitListeners(List<CommitListener> listeners) {
        this.listeners = listeners;
    }

    static CommitListener of(List<? extends CommitListener> listeners) {
        return listeners.isEmpty() ? new CommitListener() {} : new CommitListeners(List.copyOf(listeners));
    }

    @Override
    public void durable(String messageId) {
        tell("durable", listener -> listener.durable(messageId));
    }

    @Override
    public void claiming(List<String> messageIds) {
        tell("claiming", listener -> listener.claiming(messageIds));
    }

    @Override
    public void published(String name) {
        tell("published", listener -> listener.published(name));
    }

    @Override
    public void appended(List<String> names) {
        tell("appended", listener -> listener.appended(names));
    }

    private void tell(String event, Event told) {
        for (CommitListener listener : listeners) {
            try {
                told.to(listener);
            } catch (RuntimeException e) {
                log.warn(
                        "the archive's commit listener {} failed on {} (ignored): {}",
                        listener,
                        event,
                        e.toString(),
                        e);
            }
        }
    }

    /** One of the moments, told to one listener. */
    @FunctionalInterface
    private interface Event {
        void to(CommitListener listener);
    }
}
