package io.nemolens.archive.spool;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The damage kept aside in the spool's folder, for health checks and meters, which ask often: the folder is
 * listed again at most once a second, by one thread at a time (the others take the last answer).
 */
final class KeptAside {

    private static final Logger log = LoggerFactory.getLogger(KeptAside.class);
    private static final long INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final SpoolFolder folder;
    private final ReentrantLock listing = new ReentrantLock();
    private volatile SpoolDamage last;
    private volatile long listedAtNanos;

    KeptAside(SpoolFolder folder) throws IOException {
        this.folder = folder;
        this.last = folder.keptAside();
        this.listedAtNanos = System.nanoTime();
    }

    SpoolDamage current() {
        if (System.nanoTime() - listedAtNanos >= INTERVAL_NANOS && listing.tryLock()) {
            try {
                last = folder.keptAside();
            } catch (IOException | RuntimeException e) {
                log.warn("Spool: listing the damage kept aside in {} failed: {}", folder.dir(), e.toString());
            } finally {
                listedAtNanos = System.nanoTime();
                listing.unlock();
            }
        }
        return last;
    }
}
