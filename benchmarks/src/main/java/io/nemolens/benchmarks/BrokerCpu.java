package io.nemolens.benchmarks;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The CPU time of a RabbitMQ broker on this machine ({@code beam.smp} processes, from {@code /proc}), so that
 * the bench can say how much of the cores the broker took while the consumer ran; nothing when the broker
 * runs elsewhere or there is no {@code /proc}.
 */
final class BrokerCpu {

    /** Linux's clock ticks per second for {@code /proc/<pid>/stat} times (USER_HZ, 100 on every platform). */
    private static final long TICKS_PER_SECOND = 100;

    private BrokerCpu() {}

    /** Nanoseconds of CPU (user and system) used so far by the local broker's processes, or -1 when none is seen. */
    static long nanos() {
        long ticks = 0;
        boolean found = false;
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path proc : procs) {
                try {
                    if (!Files.readString(proc.resolve("comm")).trim().equals("beam.smp")) {
                        continue;
                    }
                    String stat = Files.readString(proc.resolve("stat"));
                    // fields after the command (which may hold spaces) start after its closing parenthesis
                    String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ", -1);
                    ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14 and 15)
                    found = true;
                } catch (IOException | RuntimeException e) {
                    // the process ended meanwhile, or is not ours to read
                }
            }
        } catch (IOException e) {
            return -1;
        }
        return found ? ticks * (1_000_000_000L / TICKS_PER_SECOND) : -1;
    }
}
