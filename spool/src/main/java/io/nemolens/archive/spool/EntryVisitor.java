package io.nemolens.archive.spool;

import java.io.IOException;

/** Receives the entries {@link Spool#read} finds, in seq order. */
@FunctionalInterface
public interface EntryVisitor {

    /**
     * One durable entry.
     *
     * @param seq the entry's sequence number
     * @param appendedAtMillis when it was appended (epoch milliseconds)
     * @param payload the bytes given to {@link Spool#append}
     * @throws IOException to stop reading; {@link Spool#read} throws it on
     */
    void visit(long seq, long appendedAtMillis, byte[] payload) throws IOException;
}
