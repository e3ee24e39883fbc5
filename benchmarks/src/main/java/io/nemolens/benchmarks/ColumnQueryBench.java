package io.nemolens.benchmarks;

import io.nemolens.archive.ArchiveOptions;
import io.nemolens.archive.DirectWriter;
import io.nemolens.decode.DecodedMessage;
import io.nemolens.decode.OtlpDecoder;
import io.nemolens.generator.NemoLensRequests;
import io.nemolens.handlers.Signal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The "steps per rank" query (docs/archive.md) on typed columns ({@code dl_rank}, {@code megatron_iteration}) and on
 * the typed-JSON attributes, by DuckDB over the same archive files: the files are written once with the archive's own
 * Parquet writing ({@link DirectWriter}), then the two queries alternate, each checked to give the same answer, and
 * their times are printed with their medians and ratio. Run it in a JVM of its own:
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.nemolens.benchmarks.ColumnQueryBench [--messages 2000] [--ranks 64]
 *     [--repeats 9]
 * </pre>
 */
public final class ColumnQueryBench {

    /** Train steps per rank of an iteration range, on the promoted columns. */
    static final String TYPED = """
            SELECT dl_rank AS rank, count(*) AS steps, round(avg(duration_nanos) / 1e6, 1) AS avg_ms
            FROM %s
            WHERE name = 'megatron.train_step' AND megatron_iteration BETWEEN %d AND %d
            GROUP BY ALL ORDER BY rank""";

    /** The same, on the typed JSON of the attributes. */
    static final String JSON = """
            SELECT (resource_attributes->>'$."dl.rank".intValue')::BIGINT AS rank, count(*) AS steps,
                   round(avg(duration_nanos) / 1e6, 1) AS avg_ms
            FROM %s
            WHERE name = 'megatron.train_step'
              AND (attributes->>'$."megatron.iteration".intValue')::BIGINT BETWEEN %d AND %d
            GROUP BY ALL ORDER BY rank""";

    private ColumnQueryBench() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> opts = new TreeMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            opts.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        int messages = Integer.parseInt(opts.getOrDefault("messages", "2000"));
        int ranks = Integer.parseInt(opts.getOrDefault("ranks", "64"));
        int repeats = Integer.parseInt(opts.getOrDefault("repeats", "9"));
        Path dir = Files.createTempDirectory("lens-column-query");
        try {
            long spans = write(dir, messages, ranks);
            String table = "read_parquet('" + dir.resolve("spans") + "/**/*.parquet', hive_partitioning = false)";
            System.out.printf(
                    Locale.ROOT,
                    "steps per rank: %d spans of %d ranks in %d files, %.1f MB (%s, %s, %d cores)%n",
                    spans,
                    ranks,
                    ArchiveFiles.under(dir).count(),
                    ArchiveFiles.under(dir).bytes() / 1e6,
                    System.getProperty("java.version"),
                    System.getProperty("os.arch"),
                    Runtime.getRuntime().availableProcessors());
            try (Connection db = DriverManager.getConnection("jdbc:duckdb:");
                    Statement st = db.createStatement()) {
                // the middle third of the iterations the runs went through
                List<Object> range = rows(st, "SELECT min(megatron_iteration), max(megatron_iteration) FROM " + table)
                        .get(0);
                long low = ((Number) range.get(0)).longValue();
                long high = ((Number) range.get(1)).longValue();
                long from = low + (high - low) / 3;
                long to = low + 2 * (high - low) / 3;
                String typed = TYPED.formatted(table, from, to);
                String json = JSON.formatted(table, from, to);
                System.out.printf(Locale.ROOT, "iterations %d to %d of %d to %d%n", from, to, low, high);
                List<List<Object>> a = rows(st, typed);
                List<List<Object>> b = rows(st, json);
                if (!a.equals(b) || a.isEmpty()) {
                    throw new IllegalStateException("the two queries disagree: " + a + " against " + b);
                }
                System.out.printf(Locale.ROOT, "both give %d ranks, e.g. %s%n", a.size(), a.get(0));
                List<Double> typedMs = new ArrayList<>();
                List<Double> jsonMs = new ArrayList<>();
                for (int r = 0; r < repeats; r++) {
                    typedMs.add(time(st, typed));
                    jsonMs.add(time(st, json));
                    System.out.printf(
                            Locale.ROOT,
                            "repeat %d: typed columns %.1f ms, JSON %.1f ms%n",
                            r + 1,
                            typedMs.get(r),
                            jsonMs.get(r));
                }
                double t = median(typedMs);
                double j = median(jsonMs);
                System.out.printf(
                        Locale.ROOT,
                        "median: typed columns %.1f ms, JSON %.1f ms: the typed columns take %.2f of the JSON's time"
                                + " (%.1fx faster)%n",
                        t,
                        j,
                        t / j,
                        j / t);
            }
        } finally {
            ArchiveFiles.delete(dir);
        }
    }

    /** Writes {@code messages} span messages of 1,024 spans, rank {@code i % ranks}, with the archive's writing. */
    private static long write(Path dir, int messages, int ranks) throws Exception {
        OtlpDecoder decoder = new OtlpDecoder();
        long spans = 0;
        try (DirectWriter writer = new DirectWriter(ArchiveOptions.defaults(dir), Clock.systemUTC())) {
            for (int i = 0; i < messages; i++) {
                byte[] body =
                        NemoLensRequests.spans(1024, "query-run", i % ranks, i).toByteArray();
                DecodedMessage decoded = decoder.decode(Signal.SPANS, body, null);
                writer.write(RawReference.spans(body, decoded));
                spans += decoded.records().count();
            }
        }
        return spans;
    }

    private static double time(Statement st, String sql) throws Exception {
        long start = System.nanoTime();
        rows(st, sql);
        return (System.nanoTime() - start) / 1e6;
    }

    private static List<List<Object>> rows(Statement st, String sql) throws Exception {
        List<List<Object>> out = new ArrayList<>();
        try (ResultSet rs = st.executeQuery(sql)) {
            int n = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<Object> row = new ArrayList<>();
                for (int c = 1; c <= n; c++) {
                    row.add(rs.getObject(c));
                }
                out.add(row);
            }
        }
        return out;
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        Collections.sort(sorted);
        return sorted.get(sorted.size() / 2);
    }
}
