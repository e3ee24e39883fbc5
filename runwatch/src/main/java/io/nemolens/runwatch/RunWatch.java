package io.nemolens.runwatch;

import io.nemolens.handlers.record.Attributes;
import io.nemolens.handlers.record.GpuSample;
import io.nemolens.handlers.record.NodeSample;
import io.nemolens.handlers.record.ResourceInfo;
import io.nemolens.handlers.record.Span;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The run watch's state: per run and rank the recent iterations' step times, per host the latest scraped
 * evidence. Handlers {@linkplain #recordSpans record} what arrives (cheap: a span is a name check and a
 * store); {@link #judge()} (every second or so, on a thread of its own) decides who is a straggler and
 * forgets runs that went quiet; {@link #runs()} and {@link #run(String)} answer the console and the meters.
 * Thread-safe. Its memory is bounded by {@link RunWatchSettings#maxBytes()}.
 */
public final class RunWatch {

    /** The resource attribute of a rank's global rank. */
    public static final String RANK = "dl.rank";
    /** The resource attribute of the GPU a rank drives on its host. */
    public static final String LOCAL_RANK = "dl.local_rank";
    /** The resource attribute of a rank's host. */
    public static final String HOST = "host.name";
    /** The span attribute of a step's iteration ({@code dl.iteration} is read when it is missing). */
    public static final String ITERATION = "megatron.iteration";

    /** Iterations above this (a billion) are taken for wild values and passed over. */
    public static final int MAX_ITERATION = 1 << 30;

    private static final Logger log = LoggerFactory.getLogger(RunWatch.class);

    private final RunWatchSettings settings;
    private final Clock clock;
    private final ConcurrentHashMap<String, RunState> runs = new ConcurrentHashMap<>();
    private final AtomicInteger ranksWatched = new AtomicInteger();
    private final LongAdder spansIgnored = new LongAdder();
    private final LongAdder failures = new LongAdder();
    private final AtomicLong failureLoggedNanos = new AtomicLong();
    private final Object hostsLock = new Object();
    private final Map<String, HostSamples> hosts;

    public RunWatch(RunWatchSettings settings, Clock clock) {
        this.settings = Objects.requireNonNull(settings, "settings");
        this.clock = Objects.requireNonNull(clock, "clock");
        int maxHosts = settings.maxHosts();
        this.hosts = new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(Map.Entry<String, HostSamples> eldest) {
                return size() > maxHosts;
            }
        };
    }

    public RunWatchSettings settings() {
        return settings;
    }

    /** Keeps the step spans' durations ({@link StepPhase}); other spans, and spans without a run, rank or iteration, are passed over. */
    public void recordSpans(List<Span> spans) {
        long now = clock.millis();
        ResourceInfo resource = null;
        RunState run = null;
        RankSteps rank = null;
        boolean ignored = false;
        for (Span span : spans) {
            StepPhase phase = StepPhase.ofSpanName(span.name());
            if (phase == null) {
                continue;
            }
            @SuppressWarnings("ReferenceEquality") // a batch's spans share their resource: look it up once per resource
            boolean sameResource = span.resource() == resource;
            if (!sameResource) {
                resource = span.resource();
                run = runOf(resource, now);
                rank = run == null ? null : rankOf(run, resource);
                ignored = rank == null
                        && !resource.runId().isEmpty()
                        && resource.attributes().getLong(RANK) != null;
            }
            if (run == null || rank == null) {
                if (ignored) {
                    spansIgnored.increment();
                }
                continue;
            }
            int iteration = iteration(span.attributes());
            long nanos = span.endTimeUnixNano() - span.startTimeUnixNano();
            if (iteration < 0 || nanos <= 0) {
                continue;
            }
            synchronized (run) {
                if (run.ended) {
                    continue;
                }
                rank.record(phase, iteration, nanos / 1e6f);
                run.lastSeenMillis = now;
            }
        }
    }

    /** Keeps the latest value of each GPU's {@link ScrapedField}s. */
    public void recordGpuSamples(List<GpuSample> samples) {
        synchronized (hostsLock) {
            for (GpuSample sample : samples) {
                ScrapedField field = ScrapedField.ofMetricName(sample.metricName());
                Integer gpu = sample.gpu();
                String host = sample.host();
                if (field != null && field.perGpu() && gpu != null && host != null && settings.maxHosts() > 0) {
                    hosts.computeIfAbsent(host, h -> new HostSamples()).gpu(gpu, field, sample.value());
                }
            }
        }
    }

    /** Keeps each host counter's ({@link ScrapedField}) increase per second between its last two scrapes. */
    public void recordNodeSamples(List<NodeSample> samples) {
        synchronized (hostsLock) {
            for (NodeSample sample : samples) {
                ScrapedField field = ScrapedField.ofMetricName(sample.metricName());
                String host = sample.host();
                if (field != null && !field.perGpu() && host != null && settings.maxHosts() > 0) {
                    hosts.computeIfAbsent(host, x -> new HostSamples())
                            .counter(field, sample.device(), sample.port(), sample.value(), sample.timeUnixNano());
                }
            }
        }
    }

    /**
     * Judges every run (who is a straggler now) and forgets the runs none of whose spans arrived for the
     * quiet period, giving their ranks back to the budget.
     *
     * @return the ranks that became stragglers or stopped being ones
     */
    public List<StragglerChange> judge() {
        long now = clock.millis();
        List<StragglerChange> changes = new ArrayList<>();
        for (RunState run : runs.values()) {
            synchronized (run) {
                if (now - run.lastSeenMillis > settings.quietPeriod().toMillis()) {
                    run.ended = true;
                    runs.remove(run.runId);
                    ranksWatched.addAndGet(-run.ranks.size());
                    continue;
                }
                try {
                    run.summary = Judge.judge(run, settings, IterationMedians.of(run, settings), changes);
                } catch (RuntimeException e) {
                    // one run's failure (a bug) leaves the others judged; logged once a minute per run
                    failures.increment();
                    if (now - run.failureLoggedMillis > 60_000) {
                        run.failureLoggedMillis = now;
                        log.warn("The run watch could not judge run {} (it tries again every judgement)", run.runId, e);
                    }
                }
            }
        }
        return changes;
    }

    /** The watched runs as last judged, the latest seen first. */
    public List<RunSummary> runs() {
        List<RunSummary> out = new ArrayList<>();
        for (RunState run : runs.values()) {
            RunSummary summary = run.summary;
            if (summary != null) {
                out.add(summary);
            }
        }
        out.sort(Comparator.comparing(RunSummary::lastSeen).reversed().thenComparing(RunSummary::runId));
        return out;
    }

    /** One run as last judged, with its stragglers' evidence and its heat map now; empty when it is not watched (or not judged yet). */
    public Optional<RunDetail> run(String runId) {
        RunState run = runs.get(runId);
        if (run == null) {
            return Optional.empty();
        }
        synchronized (run) {
            RunSummary summary = run.summary;
            if (summary == null) {
                return Optional.empty(); // not judged yet
            }
            IterationMedians m = IterationMedians.of(run, settings);
            List<RankSteps> ranks = new ArrayList<>(run.ranks.values());
            ranks.sort(Comparator.comparingInt(r -> r.rank));
            List<Long> iterations = new ArrayList<>();
            for (int i = m.newest; i >= m.oldest && iterations.size() < RunDetail.HEATMAP_ITERATIONS; i--) {
                if (!Double.isNaN(m.judged(i))) {
                    iterations.add(0, (long) i);
                }
            }
            List<RunDetail.RankRow> rows = new ArrayList<>(ranks.size());
            List<Straggler> stragglers = new ArrayList<>();
            synchronized (hostsLock) {
                EvidenceFinder finder = new EvidenceFinder(hosts);
                for (RankSteps r : ranks) {
                    float[] ratios = new float[iterations.size()];
                    for (int k = 0; k < ratios.length; k++) {
                        ratios[k] = (float) m.ratio(r, iterations.get(k).intValue(), settings.judged());
                    }
                    rows.add(new RunDetail.RankRow(r.rank, r.host, r.gpu, r.straggler, ratios));
                    if (r.straggler) {
                        stragglers.add(new Straggler(
                                r.rank,
                                r.host,
                                r.gpu,
                                r.stragglerSince,
                                r.flaggedAt,
                                r.recentRatio - 1,
                                finder.of(r, ranks)));
                    }
                }
            }
            stragglers.sort(Comparator.comparingDouble(Straggler::lag).reversed());
            return Optional.of(new RunDetail(summary, stragglers, iterations, rows));
        }
    }

    /** Ranks watched over all runs. */
    public int ranksWatched() {
        return ranksWatched.get();
    }

    /** Step spans passed over because their rank could not be watched (the ranks' or runs' budget was spent). */
    public long spansIgnored() {
        return spansIgnored.sum();
    }

    private @Nullable RunState runOf(ResourceInfo resource, long now) {
        String runId = resource.runId();
        if (runId.isEmpty()) {
            return null;
        }
        RunState run = runs.get(runId);
        if (run != null) {
            return run;
        }
        synchronized (runs) {
            if (runs.size() >= settings.maxRuns()) {
                return null;
            }
            return runs.computeIfAbsent(runId, id -> new RunState(id, now));
        }
    }

    private @Nullable RankSteps rankOf(RunState run, ResourceInfo resource) {
        Long rank = resource.attributes().getLong(RANK);
        if (rank == null || rank < 0 || rank > Integer.MAX_VALUE) {
            return null;
        }
        synchronized (run) {
            RankSteps steps = run.ranks.get(rank.intValue());
            if (steps != null || run.ended) {
                return steps;
            }
            if (ranksWatched.incrementAndGet() > settings.maxRanks()) {
                ranksWatched.decrementAndGet();
                return null;
            }
            Long gpu = resource.attributes().getLong(LOCAL_RANK);
            steps = new RankSteps(
                    rank.intValue(),
                    resource.attributes().getText(HOST, ""),
                    gpu == null || gpu < 0 || gpu >= HostSamples.MAX_GPUS ? -1 : gpu.intValue(),
                    settings.window());
            run.ranks.put(rank.intValue(), steps);
            return steps;
        }
    }

    private static int iteration(Attributes attributes) {
        Long iteration = attributes.getLong(ITERATION);
        if (iteration == null) {
            iteration = attributes.getLong("dl.iteration");
        }
        return iteration == null || iteration < 0 || iteration > MAX_ITERATION ? -1 : iteration.intValue();
    }

    /**
     * Counts a failure of one of the watch's handlers (a bug: the watch never fails a batch for it) and says
     * whether to log it: at most once a minute.
     */
    public boolean failed(RuntimeException e) {
        failures.increment();
        // System.nanoTime, not the clock: this path must not depend on what may have failed
        long now = System.nanoTime();
        long last = failureLoggedNanos.get();
        return (last == 0 || now - last > 60_000_000_000L) && failureLoggedNanos.compareAndSet(last, now);
    }

    /** Failures of the watch's handlers and judgements since the start (bugs, each logged at most once a minute). */
    public long failures() {
        return failures.sum();
    }
}
