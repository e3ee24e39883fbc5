package io.nemolens.benchmarks;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The CPU time of the processes of one command on this machine (from {@code /proc}): the RabbitMQ broker
 * ({@code beam.smp}), PostgreSQL ({@code postgres}), so that the bench can say how much of the cores they took
 * while the consumer ran; nothing when they run elsewhere or there is no {@code /proc}. Every process of that
 * command counts, whoever it works for (on a shared machine, other clients' too); one that ended between two
 * snapshots is left out of their difference, one that started between them counts in full.
 */
final class ProcessCpu {

    /** The RabbitMQ broker's command. */
    static final String BROKER = "beam.smp";

    /** PostgreSQL's command (the postmaster, its backends and its background processes). */
    static final String POSTGRES = "postgres";

    /** Linux's clock ticks per second for {@code /proc/<pid>/stat} times (USER_HZ, 100 on every platform). */
    private static final long TICKS_PER_SECOND = 100;

    /** CPU nanoseconds so far by pid; empty when no such process was seen. */
    private final Map<String, Long> nanosByPid;

    private ProcessCpu(Map<String, Long> nanosByPid) {
        this.nanosByPid = nanosByPid;
    }

    /** The CPU (user and system) used so far by each of this machine's processes of a command ({@code comm}). */
    static ProcessCpu now(String command) {
        Map<String, Long> out = new HashMap<>();
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path proc : procs) {
                try {
                    if (!Files.readString(proc.resolve("comm")).trim().equals(command)) {
                        continue;
                    }
                    String stat = Files.readString(proc.resolve("stat"));
                    // fields after the command (which may hold spaces) start after its closing parenthesis
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ", -1);
                    long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14 and 15)
                    out.put(proc.getFileName().toString(), ticks * (1_000_000_000L / TICKS_PER_SECOND));
                } catch (IOException | RuntimeException e) {
                    // the process ended meanwhile, or is not ours to read
                }
            }
        } catch (IOException e) {
            return new ProcessCpu(Map.of());
        }
        return new ProcessCpu(out);
    }

    /** The CPU (user and system) one process used so far, in nanoseconds; -1 once it is gone. */
    static long ofPid(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ", -1);
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) * (1_000_000_000L / TICKS_PER_SECOND);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The CPU time (user and system) this JVM's process used so far, in nanoseconds. */
    static long ownNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** Whether any process of the command was seen. */
    boolean seen() {
        return !nanosByPid.isEmpty();
    }

    /** CPU seconds the processes seen now used since {@code before}. */
    double secondsSince(ProcessCpu before) {
        long nanos = 0;
        for (Map.Entry<String, Long> e : nanosByPid.entrySet()) {
            nanos += e.getValue() - before.nanosByPid.getOrDefault(e.getKey(), 0L);
        }
        return nanos / 1e9;
    }
}
