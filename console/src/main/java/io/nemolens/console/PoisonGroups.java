package io.nemolens.console;

import io.nemolens.poison.PoisonIndex;
import io.nemolens.poison.PoisonInspector;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * The poison index's messages, filtered and grouped by failure category and normalised reason (digits
 * masked, as {@code poison list} groups them), so that thousands of copies of one failure are one row.
 */
public final class PoisonGroups {

    /**
     * What to show: every part that is set must match.
     *
     * @param from failed at or after (last failure), or {@code null}
     * @param to failed before, or {@code null}
     * @param signal {@code spans}, {@code metrics}, {@code logs}, or {@code null}
     * @param category a failure category, or {@code null}
     * @param run a {@code nemo.run.id}, or {@code null}
     */
    public record Filter(
            @Nullable Instant from,
            @Nullable Instant to,
            @Nullable String signal,
            @Nullable String category,
            @Nullable String run) {

        static final Filter NONE = new Filter(null, null, null, null, null);

        public boolean matches(PoisonIndex.Entry e) {
            Instant at = e.message().lastFailedAt();
            return (from == null || (at != null && !at.isBefore(from)))
                    && (to == null || (at != null && at.isBefore(to)))
                    && (signal == null || signal.equals(e.signal()))
                    && (category == null || category.equals(e.message().category()))
                    && (run == null || e.runIds().contains(run));
        }
    }

    /**
     * One group.
     *
     * @param id a short stable id of category and reason, for links
     * @param category the failure category
     * @param reason the reason with digits masked as {@code #}
     * @param entries its messages, oldest record first
     * @param firstFailure the earliest first failure among them
     * @param lastFailure the latest failure among them
     * @param signals, encodings, runIds, routingKeys what they have
     * @param maxReplays the highest replay count among them
     */
    public record Group(
            String id,
            String category,
            String reason,
            List<PoisonIndex.Entry> entries,
            @Nullable Instant firstFailure,
            @Nullable Instant lastFailure,
            List<String> signals,
            List<String> encodings,
            List<String> runIds,
            List<String> routingKeys,
            int maxReplays) {

        public int count() {
            return entries.size();
        }

        public List<String> keys() {
            return entries.stream().map(PoisonIndex.Entry::key).toList();
        }
    }

    private PoisonGroups() {}

    static List<Group> of(List<PoisonIndex.Entry> entries, Filter filter) {
        Map<String, List<PoisonIndex.Entry>> byGroup = new LinkedHashMap<>();
        for (PoisonIndex.Entry e : entries) {
            if (filter.matches(e)) {
                byGroup.computeIfAbsent(
                                id(
                                        e.message().category(),
                                        PoisonInspector.groupReason(e.message().reason())),
                                k -> new ArrayList<>())
                        .add(e);
            }
        }
        List<Group> groups = new ArrayList<>();
        byGroup.forEach((id, members) -> groups.add(group(id, members)));
        groups.sort(Comparator.comparingInt(Group::count).reversed().thenComparing(Group::category));
        return groups;
    }

    private static Group group(String id, List<PoisonIndex.Entry> members) {
        Instant first = null;
        Instant last = null;
        TreeSet<String> signals = new TreeSet<>();
        TreeSet<String> encodings = new TreeSet<>();
        TreeSet<String> runs = new TreeSet<>();
        TreeSet<String> keys = new TreeSet<>();
        int maxReplays = 0;
        for (PoisonIndex.Entry e : members) {
            Instant f = e.message().firstFailedAt() != null
                    ? e.message().firstFailedAt()
                    : e.message().lastFailedAt();
            if (f != null && (first == null || f.isBefore(first))) {
                first = f;
            }
            Instant l = e.message().lastFailedAt();
            if (l != null && (last == null || l.isAfter(last))) {
                last = l;
            }
            add(signals, e.signal());
            add(encodings, e.encoding());
            runs.addAll(e.runIds());
            add(keys, e.message().routingKey());
            maxReplays = Math.max(maxReplays, e.message().replayCount());
        }
        PoisonIndex.Entry head = members.get(0);
        return new Group(
                id,
                head.message().category(),
                PoisonInspector.groupReason(head.message().reason()),
                List.copyOf(members),
                first,
                last,
                List.copyOf(signals),
                List.copyOf(encodings),
                List.copyOf(runs),
                List.copyOf(keys),
                maxReplays);
    }

    private static void add(Set<String> set, @Nullable String value) {
        if (value != null && !value.isEmpty()) {
            set.add(value);
        }
    }

    /** A short id of a category and normalised reason: the first 12 hex digits of their SHA-256. */
    static String id(String category, String reason) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256")
                    .digest((category + "\n" + reason).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("no SHA-256", e);
        }
    }
}
