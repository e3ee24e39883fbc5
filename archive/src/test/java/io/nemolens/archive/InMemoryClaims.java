package io.nemolens.archive;

import io.nemolens.archive.claims.MessageClaims;
import java.io.IOException;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A claim registry in memory, shared by the archives of one test (the PostgreSQL registry is tested in the
 * claims module): first claim wins; it fails while told to, as a registry that is down.
 */
final class InMemoryClaims implements MessageClaims {

    private final Map<String, String> owners = new ConcurrentHashMap<>();
    private volatile boolean down;

    @Override
    public Set<String> claim(String instanceId, Collection<String> messageIds) throws IOException {
        if (down) {
            throw new IOException("the registry is down (test)");
        }
        Set<String> lost = new HashSet<>();
        for (String id : messageIds) {
            String owner = owners.putIfAbsent(id, instanceId);
            if (owner != null && !owner.equals(instanceId)) {
                lost.add(id);
            }
        }
        return lost;
    }

    @Override
    public long expire(Instant claimedBefore) {
        return 0;
    }

    @Override
    public String location() {
        return "memory";
    }

    void down(boolean down) {
        this.down = down;
    }

    /** Claims an id for an instance, as another instance's archive would. */
    void claimedBy(String messageId, String instanceId) {
        owners.put(messageId, instanceId);
    }

    Map<String, String> owners() {
        return owners;
    }

    @Override
    public void close() {}
}
