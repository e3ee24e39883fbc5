package io.nemolens.app.cli;

import io.nemolens.poison.PoisonInspector;
import io.nemolens.poison.PoisonMessage;
import io.nemolens.poison.PoisonReplayer;
import io.nemolens.poison.PoisonReport;
import io.nemolens.poison.ReplayRequest;
import io.nemolens.poison.ReplaySummary;
import java.io.PrintStream;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * {@code poison list} and {@code poison replay}: the poison queue from the command line.
 *
 * <pre>
 * poison list   [--max N]
 * poison replay [--max N] [--routing-key K] [--category C] [--reason TEXT] [--include-input-failures]
 *               [--dry-run] [--rate PER_SECOND]
 * </pre>
 */
public record PoisonCommand(PoisonInspector inspector, PoisonReplayer replayer) implements LensCommand {

    static final String USAGE = """
            usage: poison list [--max N]
                     counts by category and reason, then the first N messages (default 100) in queue order
                   poison replay [--max N] [--routing-key KEY] [--category CATEGORY] [--reason TEXT]
                                 [--include-input-failures] [--dry-run] [--rate PER_SECOND]
                     moves messages back to their original exchange and routing key (confirmed), or to the
                     parking lot after lens.poison.max-replays replays; decode, unknown-signal and oversized
                     failures only with --include-input-failures or --category naming them""";

    static final String NAME = "poison";
    static final String DESCRIPTION = "list | replay the poison queue ('poison help' for options)";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return DESCRIPTION;
    }

    @Override
    public int run(List<String> args, PrintStream out) throws Exception {
        if (args.isEmpty() || !(args.get(0).equals("list") || args.get(0).equals("replay"))) {
            out.println(USAGE);
            return args.isEmpty() || !args.get(0).equals("help") ? 2 : 0;
        }
        Options options;
        try {
            options = Options.parse(args.subList(1, args.size()), args.get(0).equals("replay"));
        } catch (IllegalArgumentException e) {
            out.println("error: " + e.getMessage());
            out.println(USAGE);
            return 2;
        }
        if (args.get(0).equals("list")) {
            print(inspector.inspect(options.max == null ? PoisonInspector.DEFAULT_LISTED : options.max), out);
            return 0;
        }
        ReplaySummary summary = replayer.replay(options.request());
        out.println(summary.line());
        summary.failures().forEach(f -> out.println("  failed: " + f));
        return summary.failed() == 0 ? 0 : 1;
    }

    static void print(PoisonReport report, PrintStream out) {
        out.printf(
                "poison queue '%s': %d message(s), %d examined, oldest failure %s%n",
                report.queue(), report.depth(), report.examined(), time(report.oldestFailure()));
        if (report.nearDeliveryLimit() > 0) {
            out.printf(
                    "warning: %d message(s) are close to the poison queue's x-delivery-limit, where the broker drops "
                            + "them; the next 'poison replay' (not a dry run) moves them to the parking lot%n",
                    report.nearDeliveryLimit());
        }
        if (report.examined() == 0) {
            return;
        }
        out.println();
        out.printf("%6s  %-16s  %-24s  %s%n", "count", "category", "routing keys", "reason");
        for (PoisonReport.Group g : report.groups()) {
            out.printf(
                    "%6d  %-16s  %-24s  %s%n", g.count(), g.category(), String.join(",", g.routingKeys()), g.reason());
        }
        out.println();
        out.printf(
                "%5s  %-12s  %-14s  %-16s  %7s  %10s  %9s  %-24s  %-24s  %s%n",
                "#",
                "id",
                "routing key",
                "category",
                "replays",
                "deliveries",
                "bytes",
                "first failure",
                "last failure",
                "reason");
        for (PoisonMessage m : report.messages()) {
            out.printf(
                    "%5d  %-12s  %-14s  %-16s  %7d  %10d  %9d  %-24s  %-24s  %s%n",
                    m.position(),
                    m.messageId().substring(0, 12),
                    m.routingKey(),
                    m.category(),
                    m.replayCount(),
                    m.deliveryCount(),
                    m.size(),
                    time(m.firstFailedAt()),
                    time(m.lastFailedAt()),
                    m.reason());
        }
        if (report.messages().size() < report.examined()) {
            out.printf(
                    "(%d more not listed; --max N lists more)%n",
                    report.examined() - report.messages().size());
        }
    }

    private static String time(@Nullable Instant instant) {
        return instant == null ? "-" : instant.toString();
    }

    /** The parsed options. */
    static final class Options {
        static final java.util.Set<String> OPTIONS = java.util.Set.of(
                "--max", "--routing-key", "--category", "--reason", "--include-input-failures", "--dry-run", "--rate");

        @Nullable
        Integer max;

        @Nullable
        String routingKey;

        @Nullable
        String category;

        @Nullable
        String reason;

        boolean includeInputFailures;
        boolean dryRun;
        double rate;

        static Options parse(List<String> args, boolean replay) {
            Options o = new Options();
            for (int i = 0; i < args.size(); i++) {
                String arg = args.get(i);
                String name = arg;
                String value = null;
                int eq = arg.indexOf('=');
                if (arg.startsWith("--") && eq > 0) {
                    name = arg.substring(0, eq);
                    value = arg.substring(eq + 1);
                }
                if (!OPTIONS.contains(name)) {
                    throw new IllegalArgumentException("unknown option: " + arg
                            + (name.indexOf('.') > 0 ? " (a Spring property takes the form --name=value)" : ""));
                }
                boolean flag = name.equals("--dry-run") || name.equals("--include-input-failures");
                if (!flag && value == null) {
                    if (i + 1 >= args.size()) {
                        throw new IllegalArgumentException(arg + " needs a value");
                    }
                    value = args.get(++i);
                }
                if (!replay && !name.equals("--max")) {
                    throw new IllegalArgumentException("unknown option for list: " + arg);
                }
                switch (name) {
                    case "--max" -> o.max = positive(name, Objects.requireNonNull(value, name));
                    case "--routing-key" -> o.routingKey = value;
                    case "--category" -> o.category = value;
                    case "--reason" -> o.reason = value;
                    case "--include-input-failures" -> o.includeInputFailures = true;
                    case "--dry-run" -> o.dryRun = true;
                    case "--rate" -> o.rate = rate(Objects.requireNonNull(value, name));
                    default -> throw new IllegalArgumentException("unknown option: " + arg);
                }
            }
            return o;
        }

        ReplayRequest request() {
            return ReplayRequest.of(max, routingKey, category, reason, includeInputFailures, dryRun, rate);
        }

        private static int positive(String name, String value) {
            try {
                int n = Integer.parseInt(value);
                if (n >= 0) {
                    return n;
                }
            } catch (NumberFormatException e) {
                // below
            }
            throw new IllegalArgumentException(name + " needs a number of at least 0, got '" + value + "'");
        }

        private static double rate(String value) {
            try {
                double r = Double.parseDouble(value);
                if (r > 0) {
                    return r;
                }
            } catch (NumberFormatException e) {
                // below
            }
            throw new IllegalArgumentException(
                    "--rate needs a positive number of messages per second, got '" + value + "'");
        }
    }
}
