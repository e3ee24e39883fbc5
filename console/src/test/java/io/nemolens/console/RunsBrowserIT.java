package io.nemolens.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.nemolens.generator.TelemetryGenerator;
import io.nemolens.generator.TelemetryGenerator.Faults;
import io.nemolens.generator.TelemetryGenerator.Kind;
import io.nemolens.testing.BrokerClient;
import io.nemolens.testing.ConsumerExtension;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;

/**
 * The console's Runs pages in Chromium against a running consumer and the real broker: the generator's run of
 * 64 ranks, rank 17 1.3 x slower from iteration 50 on a GPU that throttles, published an iteration at a time;
 * the operator sees the run, opens it, and finds rank 17 flagged within 20 iterations with its GPU's throttling
 * as the evidence, and the meters say the same. Screenshots go to {@code target/console-screenshots/} (and to
 * {@code -Dlens.console.screenshots=DIR}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RunsBrowserIT {

    static final String USER = "operator";
    static final String PASSWORD =
            "runs-it-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
    static final String RUN = "llama3-8b-pretrain-20261207-slow";
    static final int RANKS = 64;
    static final int SLOW = 17;
    static final String ODD_RUN = "pretrain \"v2\" #3+x";
    static final Duration WAIT = Duration.ofSeconds(60);

    @RegisterExtension
    static final ConsumerExtension lens = ConsumerExtension.of(ConsoleApplication.class)
            .properties(Map.of(
                    "management.server.port", "0",
                    "management.endpoints.web.exposure.include", "health,prometheus",
                    "spring.security.user.name", USER,
                    "spring.security.user.password", PASSWORD,
                    "lens.console.sample-interval", "1s"));

    private WebDriver browser;
    private String console;

    @BeforeAll
    void start() throws Exception {
        console = "http://127.0.0.1:" + lens.consumer().managementPort() + "/console";
        browser = ConsoleBrowserIT.chromium();
    }

    @AfterAll
    void stop() {
        if (browser != null) {
            browser.quit();
        }
    }

    @Test
    void theSlowRankIsFlaggedWithinTwentyIterationsWithItsThrottlingGpuAsEvidence() throws Exception {
        logIn();
        browser.get(console + "/runs");
        assertThat(find(By.id("no-runs")).isDisplayed()).isTrue();

        AtomicInteger iteration = new AtomicInteger();
        AtomicBoolean done = new AtomicBoolean();
        Thread publisher = new Thread(() -> publish(iteration, done), "runs-it-publisher");
        publisher.start();
        try {
            // the run appears in the list, its ranks counted, its iterations moving
            WebElement row = find(By.cssSelector("tr.run[data-run='" + RUN + "']"));
            await().atMost(WAIT)
                    .until(() ->
                            row.findElement(By.className("ranks")).getText().equals("64"));
            screenshot("runs");

            row.findElement(By.className("run-link")).click();
            await().atMost(WAIT).until(() -> browser.getCurrentUrl().contains("/console/run?id="));
            // the run's last iteration in the very answer the page first drew the straggler from
            Number shownAt = await().atMost(WAIT)
                    .until(
                            () -> (Number) ((JavascriptExecutor) browser)
                                    .executeScript("return window.lensRun && window.lensRun.stragglerList.length > 0"
                                            + " ? window.lensRun.lastIteration : null"),
                            java.util.Objects::nonNull);
            find(By.cssSelector("tr.straggler[data-rank='" + SLOW + "']"));
            screenshot("run");
            // the table is drawn again at every refresh: read what it shows in one go
            Map<String, Object> shown = stragglerTable();
            @SuppressWarnings("unchecked")
            List<List<String>> rows = (List<List<String>>) shown.get("rows");
            @SuppressWarnings("unchecked")
            List<String> unusual = (List<String>) shown.get("unusual");

            assertThat(shownAt.longValue())
                    .as("shown in the console within 20 iterations of the first slow one (50)")
                    .isBetween(54L, 70L);
            assertThat(rows).as("rank 17, nobody else").hasSize(1);
            List<String> cells = rows.get(0);
            assertThat(cells.get(0)).isEqualTo("17");
            assertThat(cells.get(1)).isEqualTo("dgx-a100-002");
            assertThat(cells.get(2)).isEqualTo("1");
            assertThat(cells.get(3)).as("slow since").isEqualTo("50");
            assertThat(cells.get(4)).as("flagged at: its fifth slow step").isEqualTo("54");
            assertThat(cells.get(5)).matches("\\+(2[0-9]|3[0-9]) %");
            assertThat(unusual)
                    .anySatisfy(
                            u -> assertThat(u)
                                    .startsWith(
                                            "DCGM_FI_DEV_CLOCK_THROTTLE_REASONS of GPU 1 of dgx-a100-002: 0x60 SW thermal slowdown, HW thermal slowdown"))
                    .anySatisfy(u -> assertThat(u).startsWith("DCGM_FI_DEV_SM_CLOCK of GPU 1 of dgx-a100-002: "))
                    .anySatisfy(u -> assertThat(u).startsWith("DCGM_FI_DEV_GPU_TEMP of GPU 1 of dgx-a100-002: "));
            assertThat(cells.get(6)).as("the evidence, what stands out first").startsWith(unusual.get(0));
            assertThat(find(By.id("stragglers")).getText()).isEqualTo("1");
            assertThat(Integer.parseInt(find(By.id("heatmap")).getAttribute("height")))
                    .as("a row of the heat map per rank")
                    .isGreaterThanOrEqualTo(RANKS);

            // the meters: per run, never per rank
            String scrape = prometheus();
            assertThat(scrape).contains("lens_run_stragglers{run=\"" + RUN + "\"} 1.0");
            assertThat(scrape).contains("lens_run_slowest_rank{run=\"" + RUN + "\"} 17.0");
            assertThat(scrape).contains("lens_run_ranks{run=\"" + RUN + "\"} 64.0");
            assertThat(scrape).containsPattern("lens_run_step_time_seconds\\{quantile=\"0.99\",run=\"" + RUN + "\"} ");
            assertThat(scrape).doesNotContain("rank=\"");

            // back to the list: the run's straggler count, and a run whose id needs escaping in a selector and a URL
            publishOddRun();
            find(By.id("nav-runs")).click();
            WebElement again = find(By.cssSelector("tr.run[data-run='" + RUN + "'] td.stragglers"));
            await().atMost(WAIT).until(() -> again.getText().equals("1"));
            assertThat(find(By.cssSelector("tr.run[data-run='" + RUN + "'] td.slowest"))
                            .getText())
                    .startsWith("rank 17 (+");
            WebElement odd = await().atMost(WAIT)
                    .until(
                            () -> browser.findElements(By.className("run-link")).stream()
                                    .filter(a -> a.getText().equals(ODD_RUN))
                                    .findFirst(),
                            java.util.Optional::isPresent)
                    .orElseThrow();
            odd.click();
            await().atMost(WAIT).until(() -> find(By.id("ranks")).getText().equals("4"));
            assertThat(find(By.id("run-id")).getText()).isEqualTo(ODD_RUN);
            assertThat(find(By.id("gone")).isDisplayed()).isFalse();
        } finally {
            done.set(true);
            publisher.join(10_000);
        }
    }

    /**
     * The generator's run, one step of one rank per message and a dcgm and node-exporter scrape every eight:
     * iterations 1-45 at once, then five iterations a second (the judge looks every second), until told to stop.
     */
    private void publish(AtomicInteger iteration, AtomicBoolean done) {
        TelemetryGenerator generator = new TelemetryGenerator(new TelemetryGenerator.Settings(
                List.of(
                        Kind.SPANS,
                        Kind.SPANS,
                        Kind.SPANS,
                        Kind.SPANS,
                        Kind.SPANS,
                        Kind.SPANS,
                        Kind.SPANS,
                        Kind.SPANS,
                        Kind.GPU,
                        Kind.NODE),
                RUN,
                RANKS,
                8,
                3,
                32,
                42,
                System.currentTimeMillis() * 1_000_000L,
                new Faults(SLOW, 1.3, 50, SLOW, null)));
        BrokerClient client = lens.client();
        String exchange = lens.topology().exchange();
        try {
            while (!done.get() && iteration.get() < 200) {
                int spans = 0;
                while (spans < RANKS) {
                    TelemetryGenerator.Batch batch = generator.next();
                    client.publish(
                            exchange,
                            batch.signal().routingKey(),
                            batch.request().toByteArray());
                    if (batch.kind() == Kind.SPANS) {
                        spans++;
                    }
                }
                if (iteration.incrementAndGet() >= 45) {
                    Thread.sleep(200);
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("publishing iteration " + iteration.get() + " failed", e);
        }
    }

    /** Ten iterations of four ranks of a run whose id holds quotes, a space, a hash and a plus. */
    private void publishOddRun() throws Exception {
        TelemetryGenerator generator = new TelemetryGenerator(new TelemetryGenerator.Settings(
                List.of(Kind.SPANS), ODD_RUN, 4, 8, 3, 32, 7, System.currentTimeMillis() * 1_000_000L));
        for (int i = 0; i < 40; i++) {
            TelemetryGenerator.Batch batch = generator.next();
            lens.client()
                    .publish(
                            lens.topology().exchange(),
                            batch.signal().routingKey(),
                            batch.request().toByteArray());
        }
    }

    /** The stragglers' table as the page shows it: each row's cells' text, and the evidence that stands out. */
    @SuppressWarnings("unchecked")
    private Map<String, Object> stragglerTable() {
        return (Map<String, Object>) ((JavascriptExecutor) browser)
                .executeScript("const rows = [...document.querySelectorAll('#straggler-table tr.straggler')];"
                        + " return {rows: rows.map(r => [...r.children].map(td => td.innerText.trim())),"
                        + " unusual: [...document.querySelectorAll('#straggler-table li.unusual')]"
                        + ".map(li => li.innerText.trim())};");
    }

    private void logIn() {
        browser.get(console);
        find(By.id("login-form"));
        find(By.id("username")).sendKeys(USER);
        find(By.id("password")).sendKeys(PASSWORD);
        find(By.id("login")).click();
        await().atMost(WAIT).until(() -> browser.findElements(By.id("user")).size() == 1);
    }

    private String prometheus() throws Exception {
        String url = console.replace("/console", "/actuator/prometheus");
        HttpResponse<String> answer = HttpClient.newHttpClient()
                .send(HttpRequest.newBuilder(URI.create(url)).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).isEqualTo(200);
        return answer.body();
    }

    private void screenshot(String name) throws Exception {
        Path png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath();
        Path dir = Files.createDirectories(Path.of("target", "console-screenshots"));
        Files.copy(png, dir.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
        String docs = System.getProperty("lens.console.screenshots", "");
        if (!docs.isBlank()) {
            Files.copy(png, Path.of(docs).resolve("console-" + name + ".png"), StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private WebElement find(By by) {
        return findAll(by).get(0);
    }

    private List<WebElement> findAll(By by) {
        return await().atMost(WAIT).until(() -> browser.findElements(by), found -> !found.isEmpty());
    }

    static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
