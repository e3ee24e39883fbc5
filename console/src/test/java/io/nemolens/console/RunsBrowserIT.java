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
            WebElement straggler = find(By.cssSelector("tr.straggler[data-rank='" + SLOW + "']"));
            List<WebElement> cells = straggler.findElements(By.tagName("td"));
            long since = Long.parseLong(cells.get(3).getText());
            long flaggedAt = Long.parseLong(cells.get(4).getText());
            screenshot("run");

            assertThat(cells.get(1).getText()).isEqualTo("dgx-a100-002");
            assertThat(cells.get(2).getText()).isEqualTo("1");
            assertThat(since).isEqualTo(50);
            assertThat(flaggedAt).as("flagged within 20 iterations").isBetween(54L, 70L);
            assertThat(cells.get(5).getText()).matches("\\+(2[0-9]|3[0-9]) %");
            List<WebElement> unusual = straggler.findElements(By.cssSelector("ul.evidence li.unusual"));
            assertThat(unusual)
                    .extracting(e -> e.getAttribute("data-field"))
                    .contains("DCGM_FI_DEV_CLOCK_THROTTLE_REASONS", "DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_GPU_TEMP");
            assertThat(unusual.get(0).getText()).contains("GPU 1 of dgx-a100-002");
            assertThat(straggler.getText()).contains("SW thermal slowdown, HW thermal slowdown");
            assertThat(findAll(By.cssSelector("tr.straggler")))
                    .as("nobody else")
                    .hasSize(1);
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

            // back to the list: the run's straggler count
            find(By.id("nav-runs")).click();
            WebElement again = find(By.cssSelector("tr.run[data-run='" + RUN + "'] td.stragglers"));
            await().atMost(WAIT).until(() -> again.getText().equals("1"));
            assertThat(find(By.cssSelector("tr.run[data-run='" + RUN + "'] td.slowest"))
                            .getText())
                    .startsWith("rank 17 (+");
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
