package io.nemolens.archive.dedup;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An hour whose ids are in memory: its log on disk mirrored in an {@link IdSet}. Open while it is the
 * hour being recorded; sealed (log closed, nothing appended any more) once a later hour began, until
 * it is compacted into a {@link SortedHour}. Appending and sealing happen under the index's write lock.
 */
final class LiveHour extends Hour {

    private static final Logger log = LoggerFactory.getLogger(LiveHour.class);

    private final IdSet ids;
    private final HourLog hourLog;
    private volatile boolean sealed;

    private LiveHour(long hour, IdSet ids, HourLog hourLog) {
        super(hour);
        this.ids = ids;
        this.hourLog = hourLog;
    }

    /** Opens the hour's log (creating it if needed) and reads the ids it holds into memory. */
    static LiveHour open(Path file, long hour) throws IOException {
        HourLog hourLog = HourLog.open(file);
        try {
            IdSet ids = new IdSet((int) Math.min(Integer.MAX_VALUE, hourLog.bytes() / Records.BYTES));
            hourLog.read(ids::addAll);
            return new LiveHour(hour, ids, hourLog);
        } catch (IOException | RuntimeException e) {
            hourLog.close();
            throw e;
        }
    }

    boolean sealed() {
        return sealed;
    }

    /** Logs the records durably, then adds them to the set. */
    void append(ByteBuffer records) throws IOException {
        if (sealed) {
            throw new IllegalStateException("the hour is sealed");
        }
        hourLog.append(records.duplicate());
        ids.addAll(records);
    }

    /** Nothing more will be appended: closes the log, whose records are on disk already. */
    void seal() {
        if (sealed) {
            return;
        }
        sealed = true;
        try {
            hourLog.close();
        } catch (IOException e) {
            log.warn("Closing the dedup log of hour {} failed (its records were forced already)", hour(), e);
        }
    }

    @Override
    boolean contains(long high, long low) {
        return ids.contains(high, low);
    }

    @Override
    int count() {
        return ids.size();
    }

    @Override
    long bytes() {
        return hourLog.bytes();
    }
}
