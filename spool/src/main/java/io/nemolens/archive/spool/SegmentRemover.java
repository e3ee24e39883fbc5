package io.nemolens.archive.spool;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes sealed segments whose entries are all released, on the writer thread, oldest first: tells the
 * removal listener first (a listener that throws keeps the segment, retried a second later), deletes the
 * file and forces the folder. Before it deletes the newest segment it records the next seq durably in
 * {@code next-seq}, so that seqs never repeat even once every segment is gone (while a newer segment
 * remains, its name carries that; so on a full disk, older segments still go without writing anything).
 */
final class SegmentRemover {

    private static final Logger log = LoggerFactory.getLogger(SegmentRemover.class);
    private static final long RETRY_MILLIS = 1000;

    private final SpoolState state;
    private final SpoolFolder folder;
    private volatile RemovalListener listener = RemovalListener.NONE;
    private long nextSeqWritten = -1;

    SegmentRemover(SpoolState state, SpoolFolder folder) {
        this.state = state;
        this.folder = folder;
    }

    void listener(RemovalListener listener) {
        this.listener = listener;
    }

    /** Removes what may go now. */
    void removeReleased(long nowMillis) {
        remove(state.removable(nowMillis), nowMillis);
    }

    /**
     * At the close, on the writer thread after its last seal: removes every segment whose entries are all released,
     * once (one that cannot go now stays for the next start, which removes it).
     */
    void removeAtClose(long nowMillis) {
        remove(state.removableAtClose(), nowMillis);
    }

    private void remove(List<Segment> due, long nowMillis) {
        boolean deleted = false;
        for (Segment segment : due) {
            if (tellListener(segment) && delete(segment, nowMillis)) {
                deleted = true;
            } else {
                state.removalFailed(segment, nowMillis + RETRY_MILLIS);
            }
        }
        if (deleted) {
            try {
                folder.force();
            } catch (IOException e) {
                log.warn("Spool: forcing {} after deleting segments failed: {}", folder.dir(), e.toString());
            }
        }
    }

    private boolean tellListener(Segment segment) {
        try {
            listener.removing(segment.firstSeq(), segment.lastSeq());
            return true;
        } catch (Exception e) {
            log.warn("Spool: the removal listener refused {}, kept for now: {}", segment, e.toString());
            return false;
        }
    }

    private boolean delete(Segment segment, long nowMillis) {
        try {
            long nextSeq = state.nextSeq();
            if (state.newest(segment) && nextSeq != nextSeqWritten) {
                folder.writeNextSeq(nextSeq);
                nextSeqWritten = nextSeq;
            }
            Files.deleteIfExists(segment.path());
            state.removed(segment);
            log.debug("Spool: removed {}", segment);
            return true;
        } catch (IOException e) {
            log.warn("Spool: deleting {} failed, retried at {}: {}", segment, nowMillis + RETRY_MILLIS, e.toString());
            return false;
        }
    }
}
