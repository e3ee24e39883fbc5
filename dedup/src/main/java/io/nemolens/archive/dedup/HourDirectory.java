package io.nemolens.archive.dedup;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.NavigableSet;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The index folder: the names of the hour files, what is there, and the steps that keep it consistent
 * through a crash (compaction writes the sorted file and forces the folder before the log goes).
 * Hours are counted from the epoch in UTC ({@code epochSecond / 3600}).
 */
final class HourDirectory {

    private static final long SECONDS_PER_HOUR = 3600;
    private static final String LOG = ".log";
    private static final String SORTED = ".sorted";
    private static final String TEMPORARY = ".tmp";
    private static final DateTimeFormatter HOUR_NAME = DateTimeFormatter.ofPattern("yyyyMMdd'T'HH");
    private static final Pattern HOUR_FILE = Pattern.compile("(\\d{8}T\\d{2})(\\.log|\\.sorted)");

    /** The hours that have a log and those that have a sorted file. */
    record Contents(NavigableSet<Long> logs, NavigableSet<Long> sorted) {}

    private final Path folder;

    HourDirectory(Path folder) {
        this.folder = folder;
    }

    static long hourOf(Instant instant) {
        return Math.floorDiv(instant.getEpochSecond(), SECONDS_PER_HOUR);
    }

    static Instant startOf(long hour) {
        return Instant.ofEpochSecond(hour * SECONDS_PER_HOUR);
    }

    Path log(long hour) {
        return folder.resolve(name(hour) + LOG);
    }

    Path sorted(long hour) {
        return folder.resolve(name(hour) + SORTED);
    }

    /** Lists the hour files, deleting temporary ones (a compaction cut short); other files are left alone. */
    Contents scan() throws IOException {
        NavigableSet<Long> logs = new TreeSet<>();
        NavigableSet<Long> sorted = new TreeSet<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(folder)) {
            for (Path file : files) {
                String name = file.getFileName().toString();
                Matcher matcher = HOUR_FILE.matcher(name);
                if (name.endsWith(TEMPORARY)) {
                    Files.deleteIfExists(file);
                } else if (matcher.matches()) {
                    Long hour = parseHour(matcher.group(1));
                    if (hour != null) {
                        (matcher.group(2).equals(LOG) ? logs : sorted).add(hour);
                    }
                }
            }
        }
        return new Contents(logs, sorted);
    }

    /**
     * Turns a closed hour's log into its sorted file and deletes the log; returns the mapped sorted file,
     * or {@code null} when the log held no whole record.
     */
    @Nullable
    SortedHour compact(long hour) throws IOException {
        Path log = log(hour);
        Path sorted = sorted(hour);
        Path temporary = folder.resolve(sorted.getFileName() + TEMPORARY);
        boolean written;
        try {
            written = SortedHour.write(log, temporary, sorted);
        } catch (IOException | RuntimeException e) {
            try {
                Files.deleteIfExists(temporary);
            } catch (IOException again) {
                e.addSuppressed(again);
            }
            throw e;
        }
        if (!written) {
            Files.delete(log);
            return null;
        }
        force();
        SortedHour result = SortedHour.open(sorted, hour);
        Files.delete(log);
        return result;
    }

    /** Deletes whatever files the hour has. */
    void delete(long hour) throws IOException {
        Files.deleteIfExists(log(hour));
        Files.deleteIfExists(sorted(hour));
    }

    /** Forces the folder's entries (files created, renamed or deleted) to disk. */
    void force() throws IOException {
        try (FileChannel channel = FileChannel.open(folder, StandardOpenOption.READ)) {
            channel.force(true);
        }
    }

    /** The hour a file name gives, or {@code null} for digits that are no date (not a file of ours). */
    private static @Nullable Long parseHour(String name) {
        try {
            return hourOf(LocalDateTime.parse(name, HOUR_NAME).toInstant(ZoneOffset.UTC));
        } catch (DateTimeParseException e) {
            return null;
        }
    }

    private static String name(long hour) {
        return HOUR_NAME.format(LocalDateTime.ofEpochSecond(hour * SECONDS_PER_HOUR, 0, ZoneOffset.UTC));
    }
}
