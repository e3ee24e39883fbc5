package io.nemolens.console;

import io.nemolens.poison.Disposition;
import io.nemolens.poison.PoisonIndex;
import io.nemolens.poison.PoisonReindexer;
import io.nemolens.poison.ReplaySummary;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.security.Principal;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.http.CacheControl;
import org.springframework.http.ContentDisposition;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.MissingServletRequestParameterException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseBody;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.server.ResponseStatusException;
import org.springframework.web.servlet.mvc.support.RedirectAttributes;

/**
 * The console's pages, at {@value LensConsoleProperties#PATH} on the management server. Every read
 * view answers from meters, health indicators and the poison index; only the POST actions (CSRF-protected,
 * logged in) touch the poison queue.
 */
@Controller
@RequestMapping(LensConsoleProperties.PATH)
public class ConsoleController {

    private static final String VIEWS = "lens-console/";

    private final ConsoleService console;
    private final FlowSampler sampler;
    private final LensConsoleProperties properties;

    public ConsoleController(ConsoleService console, FlowSampler sampler, LensConsoleProperties properties) {
        this.console = console;
        this.sampler = sampler;
        this.properties = properties;
    }

    /** Who is logged in, for the header (null when reading anonymously). */
    @ModelAttribute("user")
    public @Nullable String user(@Nullable Principal principal) {
        return principal == null ? null : principal.getName();
    }

    @GetMapping("/login")
    public String login() {
        return VIEWS + "login";
    }

    @GetMapping({"", "/"})
    public String overview(Model model) {
        model.addAttribute("overview", console.overview());
        model.addAttribute("refreshMillis", sampler.interval().toMillis());
        model.addAttribute("page", "overview");
        return VIEWS + "overview";
    }

    /** The chart's data and the overview's live numbers. */
    @GetMapping(value = "/api/flow", produces = MediaType.APPLICATION_JSON_VALUE)
    @ResponseBody
    public Map<String, Object> flow() {
        List<FlowSampler.Sample> samples = sampler.samples();
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("t", samples.stream().map(FlowSampler.Sample::epochSecond).toList());
        Map<String, Object> messages = new LinkedHashMap<>();
        Map<String, Object> records = new LinkedHashMap<>();
        for (String s : FlowSampler.SIGNALS) {
            messages.put(s, samples.stream().map(x -> x.messages().get(s)).toList());
            records.put(s, samples.stream().map(x -> x.records().get(s)).toList());
        }
        out.put("messages", messages);
        out.put("records", records);
        ConsoleService.Overview o = console.overview();
        out.put("outcomes", o.outcomes());
        out.put("messageTotals", o.messages());
        out.put("recordTotals", o.records());
        out.put("depths", o.depths());
        out.put("indexed", o.indexed());
        out.put("unindexed", o.unindexed());
        out.put("status", o.status());
        return out;
    }

    @GetMapping("/poison")
    public String poison(PoisonQuery query, Model model) {
        PoisonGroups.Filter filter = query.filter();
        List<PoisonIndex.Entry> entries = console.index().entries();
        model.addAttribute("groups", PoisonGroups.of(entries, filter));
        model.addAttribute("filter", filter);
        model.addAttribute("query", query.parameters());
        model.addAttribute("overview", console.overview());
        model.addAttribute("caughtUp", console.index().isCaughtUp());
        model.addAttribute(
                "categories",
                entries.stream()
                        .map(e -> e.message().category())
                        .distinct()
                        .sorted()
                        .toList());
        model.addAttribute("page", "poison");
        return VIEWS + "poison";
    }

    @GetMapping("/poison/group/{id}")
    public String group(@PathVariable String id, PoisonQuery query, Model model) {
        PoisonGroups.Group group = PoisonGroups.of(console.index().entries(), query.filter()).stream()
                .filter(g -> g.id().equals(id))
                .findFirst()
                .orElseThrow(() -> new ResponseStatusException(HttpStatus.NOT_FOUND, "no such group (any more)"));
        model.addAttribute("group", group);
        model.addAttribute("defaultRate", properties.defaultRate());
        model.addAttribute("page", "poison");
        return VIEWS + "group";
    }

    @GetMapping("/poison/message")
    public String message(@RequestParam String key, Model model) throws IOException {
        ConsoleService.MessageView view = view(key);
        model.addAttribute("m", view);
        model.addAttribute("defaultRate", properties.defaultRate());
        model.addAttribute("page", "poison");
        return VIEWS + "message";
    }

    @GetMapping("/poison/message/body")
    public ResponseEntity<byte[]> body(@RequestParam String key) throws IOException {
        ConsoleService.MessageView view = view(key);
        String name =
                view.entry().message().messageId() + (view.truncated() ? "-first-" + view.body().length : "") + ".bin";
        return ResponseEntity.ok()
                .contentType(MediaType.APPLICATION_OCTET_STREAM)
                .header(
                        "Content-Disposition",
                        ContentDisposition.attachment().filename(name).build().toString())
                .body(view.body());
    }

    /** The dry run: what the action would do, from the index; nothing is touched. */
    @PostMapping("/poison/preview")
    public String preview(
            @RequestParam(name = "key", required = false) @Nullable List<String> keys,
            @RequestParam String disposition,
            @RequestParam(defaultValue = "0") double rate,
            Model model) {
        Set<String> selected = selection(keys);
        Disposition d = disposition(disposition);
        ReplaySummary summary = console.preview(selected, d, rate(rate));
        model.addAttribute("summary", summary);
        model.addAttribute("entries", console.selected(selected));
        model.addAttribute("disposition", d.name().toLowerCase(Locale.ROOT));
        model.addAttribute("rate", rate);
        model.addAttribute("page", "poison");
        return VIEWS + "preview";
    }

    @PostMapping("/poison/act")
    public String act(
            @RequestParam(name = "key", required = false) @Nullable List<String> keys,
            @RequestParam String disposition,
            @RequestParam(defaultValue = "0") double rate,
            @RequestParam(defaultValue = "false") boolean confirm,
            Principal principal,
            RedirectAttributes redirect)
            throws IOException {
        Set<String> selected = selection(keys);
        Disposition d = disposition(disposition);
        if (d == Disposition.DISCARD && !confirm) {
            throw new ResponseStatusException(
                    HttpStatus.BAD_REQUEST, "discarding deletes messages for good: confirm it on the preview page");
        }
        ReplaySummary summary = console.act(selected, d, rate(rate), principal.getName());
        redirect.addFlashAttribute("done", summary.line());
        return "redirect:" + LensConsoleProperties.PATH + "/poison";
    }

    @PostMapping("/poison/reindex")
    public String reindex(
            @RequestParam(defaultValue = "false") boolean confirm, Principal principal, RedirectAttributes redirect)
            throws IOException {
        if (!confirm) {
            throw new ResponseStatusException(
                    HttpStatus.BAD_REQUEST, "indexing reads every poison message once: confirm it first");
        }
        PoisonReindexer.Result result = console.reindex(principal.getName());
        redirect.addFlashAttribute("done", result.line());
        return "redirect:" + LensConsoleProperties.PATH + "/poison";
    }

    @GetMapping("/actions")
    public String actions(Model model) {
        model.addAttribute("actions", console.index().actions());
        model.addAttribute("page", "actions");
        return VIEWS + "actions";
    }

    /** uPlot's script and stylesheet from its WebJar. */
    @GetMapping("/assets/{file:uplot\\.(?:js|css)}")
    public ResponseEntity<byte[]> asset(@PathVariable String file) throws IOException {
        String name = file.endsWith(".js") ? "uPlot.iife.min.js" : "uPlot.min.css";
        Resource[] found = new PathMatchingResourcePatternResolver()
                .getResources("classpath*:META-INF/resources/webjars/uplot/*/dist/" + name);
        if (found.length == 0) {
            throw new ResponseStatusException(HttpStatus.NOT_FOUND);
        }
        try (InputStream in = found[0].getInputStream()) {
            return ResponseEntity.ok()
                    .contentType(
                            file.endsWith(".js") ? MediaType.valueOf("text/javascript") : MediaType.valueOf("text/css"))
                    .cacheControl(CacheControl.maxAge(java.time.Duration.ofHours(1)))
                    .body(in.readAllBytes());
        }
    }

    private ConsoleService.MessageView view(String key) throws IOException {
        return console.message(key)
                .orElseThrow(
                        () -> new ResponseStatusException(HttpStatus.NOT_FOUND, "not in the poison queue (any more)"));
    }

    /** A refused request gets a page that says why, with its status. */
    @ExceptionHandler(ResponseStatusException.class)
    public String refused(ResponseStatusException e, Model model, HttpServletResponse response) {
        response.setStatus(e.getStatusCode().value());
        model.addAttribute("status", e.getStatusCode().value());
        model.addAttribute("reason", e.getReason() == null ? "" : e.getReason());
        model.addAttribute("page", "");
        return VIEWS + "refused";
    }

    /** A parameter that is missing or not of its type: 400 with the parameter's name, on the same page. */
    @ExceptionHandler({MissingServletRequestParameterException.class, MethodArgumentTypeMismatchException.class})
    public String badParameter(Exception e, Model model, HttpServletResponse response) {
        String reason;
        if (e instanceof MissingServletRequestParameterException missing) {
            reason = "the request lacks '" + missing.getParameterName() + "'";
        } else {
            MethodArgumentTypeMismatchException mismatch = (MethodArgumentTypeMismatchException) e;
            Class<?> type = mismatch.getRequiredType();
            reason = "'" + mismatch.getName() + "' must be "
                    + (type == boolean.class || type == Boolean.class
                            ? "true or false"
                            : type == double.class || type == Double.class ? "a number" : "a " + type)
                    + ", got '" + mismatch.getValue() + "'";
        }
        return refused(new ResponseStatusException(HttpStatus.BAD_REQUEST, reason), model, response);
    }

    private static double rate(double rate) {
        if (!(rate >= 0) || Double.isInfinite(rate)) {
            throw new ResponseStatusException(
                    HttpStatus.BAD_REQUEST,
                    "the rate must be 0 (no limit) or a positive number of messages per second, got " + rate);
        }
        return rate;
    }

    private static Set<String> selection(@Nullable List<String> keys) {
        if (keys == null || keys.isEmpty()) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST, "select at least one message");
        }
        return new LinkedHashSet<>(keys);
    }

    private static Disposition disposition(String name) {
        try {
            return Disposition.valueOf(name.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new ResponseStatusException(
                    HttpStatus.BAD_REQUEST, "disposition must be replay, park or discard, got '" + name + "'");
        }
    }

    static @Nullable String blank(@Nullable String s) {
        return s == null || s.isBlank() ? null : s.trim();
    }

    /** An instant, or a browser's {@code datetime-local} value taken as UTC. */
    static @Nullable Instant time(@Nullable String value) {
        String v = blank(value);
        if (v == null) {
            return null;
        }
        try {
            return Instant.parse(v);
        } catch (DateTimeParseException e) {
            try {
                return LocalDateTime.parse(v).toInstant(ZoneOffset.UTC);
            } catch (DateTimeParseException e2) {
                throw new ResponseStatusException(
                        HttpStatus.BAD_REQUEST, "not a time: '" + v + "' (use 2026-11-29T19:16 UTC or an ISO instant)");
            }
        }
    }

    /**
     * The poison pages' filter, bound from the request parameters {@code from}, {@code to}, {@code signal},
     * {@code category} and {@code run} (each optional; blank is absent).
     */
    record PoisonQuery(
            @Nullable String from,
            @Nullable String to,
            @Nullable String signal,
            @Nullable String category,
            @Nullable String run) {

        PoisonGroups.Filter filter() {
            return new PoisonGroups.Filter(time(from), time(to), blank(signal), blank(category), blank(run));
        }

        /** The parameters that are set, for links that keep the filter. */
        Map<String, String> parameters() {
            Map<String, String> q = new LinkedHashMap<>();
            Optional.ofNullable(blank(from)).ifPresent(v -> q.put("from", v));
            Optional.ofNullable(blank(to)).ifPresent(v -> q.put("to", v));
            Optional.ofNullable(blank(signal)).ifPresent(v -> q.put("signal", v));
            Optional.ofNullable(blank(category)).ifPresent(v -> q.put("category", v));
            Optional.ofNullable(blank(run)).ifPresent(v -> q.put("run", v));
            return q;
        }
    }
}
