package io.nemolens.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPU time by thread, keyed {@code name#tid}: every thread of the JVM from {@code /proc/self/task} (so the
 * garbage collector's and the JIT compiler's threads too; names cut to 15 characters by Linux), or the Java
 * threads alone where there is no {@code /proc}. Where Linux keeps scheduler statistics ({@code schedstat}),
 * also the time each thread was runnable but waited for a core: on a machine shared with other work, how
 * much of the wall time other processes took.
 */
final class ThreadCpu {

    /** The consumer's and the JVM's threads by what they do, as {@code /proc} names them (cut to 15 characters). */
    private static final List<Map.Entry<String, String>> ROLES = List.of(
            // lensListenerContainer-1 cut to 15 characters, or lensListener-1 (the endpoint's id)
            Map.entry("lensListener", "listener threads"),
            Map.entry("lens-spool-writ", "spool writer"),
            Map.entry("lens-archive-co", "commit"),
            // the committer's finishing threads (lens-archive-finish-N): the last row group, footer and fsync
            Map.entry("lens-archive-fi", "commit"),
            Map.entry("lens-archive-du", "acknowledgements"),
            Map.entry("lens-archive-cl", "claims"),
            Map.entry("lens-archive-", "archive timer/repair"),
            Map.entry("AMQP Connection", "AMQP client"),
            Map.entry("C1 CompilerThre", "JIT"),
            Map.entry("C2 CompilerThre", "JIT"),
            Map.entry("CN CompilerThre", "JIT"),
            Map.entry("GC Thread", "GC"),
            Map.entry("ParGC Thread", "GC"),
            Map.entry("VM Thread", "VM thread"),
            // the bench's S3 store (s3proxy's Jetty threads), in this JVM only for the bench
            Map.entry("S3Proxy", "s3proxy"));

    private final Map<String, Long> nanos;
    private final Map<String, Long> waitNanos;

    private ThreadCpu(Map<String, Long> nanos, Map<String, Long> waitNanos) {
        this.nanos = nanos;
        this.waitNanos = waitNanos;
    }

    static ThreadCpu now() {
        Map<String, Long> out = new LinkedHashMap<>();
        Map<String, Long> waits = new LinkedHashMap<>();
        Path tasks = Path.of("/proc/self/task");
        if (Files.isDirectory(tasks)) {
            long nanosPerTick = 10_000_000L; // USER_HZ is 100 on Linux
            try (var dirs = Files.list(tasks)) {
                for (Path task : (Iterable<Path>) dirs::iterator) {
                    try {
                        String stat = Files.readString(task.resolve("stat"));
                        String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                        String[] fields =
                                stat.substring(stat.lastIndexOf(')') + 2).split(" ", -1);
                        long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime
                        String key = name + "#" + task.getFileName();
                        out.put(key, ticks * nanosPerTick);
                        Path schedstat = task.resolve("schedstat");
                        if (Files.exists(schedstat)) {
                            // nanoseconds on a core, nanoseconds runnable waiting for one, time slices
                            String[] sched = Files.readString(schedstat).trim().split(" ", -1);
                            out.put(key, Long.parseLong(sched[0]));
                            waits.put(key, Long.parseLong(sched[1]));
                        }
                    } catch (IOException | RuntimeException e) {
                        // the thread ended meanwhile
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return new ThreadCpu(out, waits);
        }
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        for (ThreadInfo info : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (info != null) {
                long cpu = mx.getThreadCpuTime(info.getThreadId());
                if (cpu > 0) {
                    out.merge(info.getThreadName() + "#" + info.getThreadId(), cpu, Long::sum);
                }
            }
        }
        return new ThreadCpu(out, waits);
    }

    /** Whether the runnable-but-waiting times are known (Linux with scheduler statistics). */
    boolean knowsWaits() {
        return !waitNanos.isEmpty();
    }

    /** CPU seconds used since {@code before}, by thread name with numbers replaced by {@code N}. */
    Map<String, Double> byName(ThreadCpu before) {
        return byName(nanos, before.nanos);
    }

    /** Seconds runnable but waiting for a core since {@code before}, by role. */
    Map<String, Double> waitsByRole(ThreadCpu before) {
        return byRole(byName(waitNanos, before.waitNanos));
    }

    private static Map<String, Double> byName(Map<String, Long> now, Map<String, Long> before) {
        Map<String, Double> out = new TreeMap<>();
        for (Map.Entry<String, Long> e : now.entrySet()) {
            double used = (e.getValue() - before.getOrDefault(e.getKey(), 0L)) / 1e9;
            String group = e.getKey().replaceAll("#\\d+$", "").replaceAll("\\d+", "N");
            out.merge(group, used, Double::sum);
        }
        return out;
    }

    /** CPU seconds used since {@code before}, by role ({@link #ROLES}; {@code other} for the rest), in that order. */
    Map<String, Double> byRole(ThreadCpu before) {
        return byRole(byName(before));
    }

    private static Map<String, Double> byRole(Map<String, Double> byName) {
        Map<String, Double> out = new LinkedHashMap<>();
        for (Map.Entry<String, String> role : ROLES) {
            out.put(role.getValue(), 0.0);
        }
        out.put("other", 0.0);
        for (Map.Entry<String, Double> e : byName.entrySet()) {
            out.merge(role(e.getKey()), e.getValue(), Double::sum);
        }
        return out;
    }

    /** The role of a thread name as {@link #byName} groups it (its numbers made {@code N}, the roles' too). */
    private static String role(String name) {
        for (Map.Entry<String, String> role : ROLES) {
            if (name.startsWith(role.getKey().replaceAll("\\d+", "N"))) {
                return role.getValue();
            }
        }
        return "other";
    }

    /** {@code " name 1.2,"} per entry of at least {@code minSeconds}, largest first. */
    static String largestFirst(Map<String, Double> seconds, double minSeconds) {
        StringBuilder out = new StringBuilder();
        seconds.entrySet().stream()
                .filter(e -> e.getValue() >= minSeconds)
                .sorted((a, b) -> Double.compare(b.getValue(), a.getValue()))
                .forEach(e -> out.append(String.format(Locale.ROOT, " %s %.1f,", e.getKey(), e.getValue())));
        return out.toString();
    }

    /** {@code " role 1.2,"} for every role, in the order of {@link #byRole}. */
    static String inOrder(Map<String, Double> seconds) {
        StringBuilder out = new StringBuilder();
        seconds.forEach((k, v) -> out.append(String.format(Locale.ROOT, " %s %.1f,", k, v)));
        return out.toString();
    }
}
