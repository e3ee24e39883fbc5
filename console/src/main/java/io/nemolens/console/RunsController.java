package io.nemolens.console;

import io.nemolens.runwatch.Evidence;
import io.nemolens.runwatch.RunDetail;
import io.nemolens.runwatch.RunSummary;
import io.nemolens.runwatch.RunWatch;
import io.nemolens.runwatch.Straggler;
import java.security.Principal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseBody;
import org.springframework.web.server.ResponseStatusException;

/**
 * The console's Runs pages: the training runs the run watch sees (ranks, last iteration, step times,
 * stragglers) and one run's heat map of ranks by iterations with its stragglers' evidence. The pages draw
 * themselves from {@code api/runs} and {@code api/run?id=}, which they ask again every few seconds. Without
 * the run watch ({@code lens.run-watch.enabled=false}) the list says so.
 */
@Controller
@RequestMapping(LensConsoleProperties.PATH)
public class RunsController {

    private static final String VIEWS = "lens-console/";

    private final ObjectProvider<RunWatch> watch;
    private final FlowSampler sampler;

    public RunsController(ObjectProvider<RunWatch> watch, FlowSampler sampler) {
        this.watch = watch;
        this.sampler = sampler;
    }

    /** Who is logged in, for the header (null when reading anonymously). */
    @ModelAttribute("user")
    public @Nullable String user(@Nullable Principal principal) {
        return principal == null ? null : principal.getName();
    }

    @GetMapping("/runs")
    public String runs(Model model) {
        RunWatch w = watch.getIfAvailable();
        model.addAttribute("watching", w != null);
        model.addAttribute("threshold", w == null ? 0 : w.settings().threshold());
        model.addAttribute("refreshMillis", sampler.interval().toMillis());
        model.addAttribute("page", "runs");
        return VIEWS + "runs";
    }

    @GetMapping("/run")
    public String run(@RequestParam String id, Model model) {
        RunWatch w = watching();
        model.addAttribute("runId", id);
        model.addAttribute("threshold", w.settings().threshold());
        model.addAttribute("consecutive", w.settings().consecutive());
        model.addAttribute("judged", w.settings().judged().spanName());
        model.addAttribute("refreshMillis", sampler.interval().toMillis());
        model.addAttribute("page", "runs");
        return VIEWS + "run";
    }

    /** The runs watched, the latest seen first. */
    @GetMapping(value = "/api/runs", produces = MediaType.APPLICATION_JSON_VALUE)
    @ResponseBody
    public List<Map<String, Object>> runsData() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (RunSummary run : watching().runs()) {
            out.add(summary(run));
        }
        return out;
    }

    /** One run: its summary, stragglers with evidence, and heat map; 404 when it is not watched (any more). */
    @GetMapping(value = "/api/run", produces = MediaType.APPLICATION_JSON_VALUE)
    @ResponseBody
    public Map<String, Object> runData(@RequestParam String id) {
        RunDetail detail = watching()
                .run(id)
                .orElseThrow(() -> new ResponseStatusException(
                        HttpStatus.NOT_FOUND, "the run watch does not watch run '" + id + "' (any more)"));
        Map<String, Object> out = summary(detail.summary());
        List<Map<String, Object>> stragglers = new ArrayList<>();
        for (Straggler s : detail.stragglers()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("rank", s.rank());
            m.put("host", s.host());
            m.put("gpu", s.gpu());
            m.put("since", s.since());
            m.put("flaggedAt", s.flaggedAt());
            m.put("lag", number(s.lag()));
            List<Map<String, Object>> evidence = new ArrayList<>();
            for (Evidence e : s.evidence()) {
                Map<String, Object> x = new LinkedHashMap<>();
                x.put("field", e.field().metricName());
                x.put("subject", e.subject());
                x.put("unusual", e.unusual());
                x.put("words", e.words());
                evidence.add(x);
            }
            m.put("evidence", evidence);
            stragglers.add(m);
        }
        out.put("stragglerList", stragglers);
        out.put("heatIterations", detail.iterations());
        List<Map<String, Object>> rows = new ArrayList<>();
        for (RunDetail.RankRow row : detail.ranks()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("rank", row.rank());
            m.put("host", row.host());
            m.put("gpu", row.gpu());
            m.put("straggler", row.straggler());
            List<@Nullable Double> ratios = new ArrayList<>(row.ratios().length);
            for (float r : row.ratios()) {
                ratios.add(Float.isNaN(r) ? null : Math.round(r * 1000) / 1000.0);
            }
            m.put("ratios", ratios);
            rows.add(m);
        }
        out.put("heatRanks", rows);
        return out;
    }

    private RunWatch watching() {
        RunWatch w = watch.getIfAvailable();
        if (w == null) {
            throw new ResponseStatusException(
                    HttpStatus.NOT_FOUND, "the run watch is off here (lens.run-watch.enabled=false)");
        }
        return w;
    }

    private static Map<String, Object> summary(RunSummary run) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("runId", run.runId());
        m.put("ranks", run.ranks());
        m.put("lastIteration", run.lastIteration());
        m.put("stepP50", number(run.stepP50Seconds()));
        m.put("stepP99", number(run.stepP99Seconds()));
        m.put("stragglers", run.stragglers());
        m.put("slowestRank", run.slowestRank());
        m.put("slowestLag", number(run.slowestLag()));
        m.put("lastSeen", run.lastSeen().toString());
        List<Long> iterations = new ArrayList<>();
        List<@Nullable Double> p50 = new ArrayList<>();
        List<@Nullable Double> p99 = new ArrayList<>();
        for (RunSummary.IterationStat s : run.iterations()) {
            iterations.add(s.iteration());
            p50.add(number(s.p50Seconds()));
            p99.add(number(s.p99Seconds()));
        }
        m.put("iterations", iterations);
        m.put("p50", p50);
        m.put("p99", p99);
        return m;
    }

    /** A JSON number, or null for NaN (JSON has no NaN). */
    private static @Nullable Double number(double value) {
        return Double.isNaN(value) || Double.isInfinite(value) ? null : value;
    }
}
