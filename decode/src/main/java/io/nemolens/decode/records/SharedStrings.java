package io.nemolens.decode.records;

import java.util.concurrent.ConcurrentHashMap;

/**
 * One shared instance of each attribute key and span or event name: a request of 1,024 spans carries its few
 * keys and names 1,024 times each, and both parsers make a new string of each. Mapped to records, they are the
 * shared instances, which stay in the processor's cache while a message's rows are written (measured: the
 * archive's first touch of each decoded key, in rendering the attributes as JSON, was 10.7 % of the listeners'
 * CPU, and looking up the span's name and {@code megatron.iteration} another 4 %) and cost their memory once in
 * records that handlers keep. Bounded: long strings are not kept, and past {@link #MAX_STRINGS} the set starts
 * again (a stream of ever new names costs a look-up each, never memory). Thread-safe.
 */
public final class SharedStrings {

    static final int MAX_STRINGS = 4096;
    static final int MAX_LENGTH = 128;

    private static final ConcurrentHashMap<String, String> STRINGS = new ConcurrentHashMap<>();

    private SharedStrings() {}

    /** The shared instance equal to {@code s} (itself, the first time). */
    public static String shared(String s) {
        String shared = STRINGS.get(s);
        if (shared != null) {
            return shared;
        }
        if (s.length() > MAX_LENGTH) {
            return s;
        }
        if (STRINGS.size() >= MAX_STRINGS) {
            STRINGS.clear();
        }
        shared = STRINGS.putIfAbsent(s, s);
        return shared != null ? shared : s;
    }
}
