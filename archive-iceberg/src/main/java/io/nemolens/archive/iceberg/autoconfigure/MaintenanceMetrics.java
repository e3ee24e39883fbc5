package io.nemolens.archive.iceberg.autoconfigure;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.nemolens.archive.iceberg.maintenance.TableMaintenance;
import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The tables' upkeep on this instance: runs ({@code lens.archive.maintenance.runs}), runs left to another instance
 * that held the lock ({@code .skipped}), failures ({@code .failures}), files compacted ({@code .compacted.files}) into
 * new ones ({@code .compacted.outputs}), rows dropped as held twice ({@code .compacted.dropped.rows}), snapshots
 * expired ({@code .expired.snapshots}), orphan files deleted ({@code .orphans.deleted}), and the seconds since the
 * last run ({@code .last.run.age}; -1 before the first).
 */
public final class MaintenanceMetrics implements MeterBinder {

    private record Counter(String name, String description, ToDoubleFunction<TableMaintenance.Status> value) {}

    private static final List<Counter> COUNTERS = List.of(
            new Counter("lens.archive.maintenance.runs", "maintenance runs this instance made", s -> s.runs()),
            new Counter(
                    "lens.archive.maintenance.skipped",
                    "maintenance runs left to another instance, which held the lock",
                    s -> s.skipped()),
            new Counter("lens.archive.maintenance.failures", "maintenance actions that failed", s -> s.failures()),
            new Counter(
                    "lens.archive.maintenance.compacted.files",
                    "small files compacted (replaced in their tables)",
                    s -> s.compactedFiles()),
            new Counter(
                    "lens.archive.maintenance.compacted.outputs",
                    "files compaction wrote in their place",
                    s -> s.compactionOutputs()),
            new Counter(
                    "lens.archive.maintenance.compacted.dropped.rows",
                    "rows compaction dropped as held twice",
                    s -> s.droppedRows()),
            new Counter(
                    "lens.archive.maintenance.expired.snapshots", "table snapshots expired", s -> s.expiredSnapshots()),
            new Counter(
                    "lens.archive.maintenance.orphans.deleted",
                    "files no snapshot referenced, deleted",
                    s -> s.deletedOrphans()),
            new Counter(
                    "lens.archive.maintenance.adopted.files",
                    "files no table held, appended once their writer was gone",
                    s -> s.adoptedFiles()));

    private final TableMaintenance maintenance;

    public MaintenanceMetrics(TableMaintenance maintenance) {
        this.maintenance = maintenance;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (Counter c : COUNTERS) {
            FunctionCounter.builder(c.name(), maintenance, m -> c.value().applyAsDouble(m.status()))
                    .description(c.description())
                    .register(registry);
        }
        Gauge.builder("lens.archive.maintenance.last.run.age", maintenance, m -> {
                    var last = m.status().lastRunAt();
                    return last == null ? -1 : Math.max(0, (System.currentTimeMillis() - last.toEpochMilli()) / 1000.0);
                })
                .description("seconds since this instance's last maintenance run; -1 before the first")
                .baseUnit("seconds")
                .register(registry);
    }
}
