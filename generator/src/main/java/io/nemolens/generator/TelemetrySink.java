package io.nemolens.generator;

import io.nemolens.handlers.Signal;
import java.io.IOException;

/** Where the generator sends its batches: the exchange or a collector. Used from one thread. */
interface TelemetrySink extends AutoCloseable {

    /** Sends one encoded OTLP request of a signal; may return before the target confirmed it. */
    void send(Signal signal, byte[] body) throws Exception;

    /** Waits until everything sent so far is confirmed, or fails. */
    void flush() throws Exception;

    /** Messages the target did not take (returned or refused), for the summary; empty when none. */
    String problems();

    /** How many of the messages sent the target confirmed (and what it took), one line for the summary. */
    String confirmation();

    /** Where this sends, for the summary. */
    String describe();

    @Override
    void close() throws IOException;
}
