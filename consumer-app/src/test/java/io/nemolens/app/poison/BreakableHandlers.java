package io.nemolens.app.poison;

import io.nemolens.handlers.LogHandler;
import io.nemolens.handlers.RejectBatchException;
import io.nemolens.handlers.SpanHandler;
import io.nemolens.handlers.record.LogEntry;
import io.nemolens.handlers.record.Span;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.springframework.context.annotation.Bean;

/**
 * Handlers with a bug that a test can fix: while {@code broken}, a span or log whose name/body starts
 * with {@code fail} throws; one starting with {@code always} always throws; {@code reject} rejects the
 * batch. Everything a handler took without throwing is in {@code handled}, in order.
 *
 * <p>Deliberately not a {@code @Configuration}: the application's component scan would then add these
 * handlers to every test's consumer. Pass the class to {@code Service.extension} instead.
 */
public class BreakableHandlers {

    /** The bug switch and what was handled. */
    public static final class State {
        public volatile boolean broken = true;
        public final List<String> handled = new CopyOnWriteArrayList<>();
    }

    @Bean
    State breakableState() {
        return new State();
    }

    @Bean
    SpanHandler breakableSpanHandler(State state) {
        return batch -> {
            List<String> names = batch.records().stream().map(Span::name).toList();
            names.forEach(name -> check(state, name));
            state.handled.addAll(names);
        };
    }

    @Bean
    LogHandler breakableLogHandler(State state) {
        return batch -> {
            List<String> bodies = batch.records().stream()
                    .map((LogEntry l) -> l.body().asText())
                    .toList();
            bodies.forEach(body -> check(state, body));
            state.handled.addAll(bodies);
        };
    }

    private static void check(State state, String name) {
        if (name.startsWith("reject")) {
            throw new RejectBatchException("cannot ever take " + name);
        }
        if (name.startsWith("always")) {
            throw new IllegalStateException("handler bug that is never fixed: " + name);
        }
        if (state.broken && name.startsWith("fail")) {
            throw new IllegalStateException("handler bug: cannot take " + name);
        }
    }
}
