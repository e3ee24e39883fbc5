package io.nemolens.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.rabbitmq.client.GetResponse;
import io.nemolens.archive.autoconfigure.LensArchiveProperties;
import io.nemolens.archive.store.ArchiveStore;
import io.nemolens.archive.store.FileName;
import io.nemolens.archive.store.LocalFolder;
import io.nemolens.archive.store.StagedFile;
import io.nemolens.handlers.SpanHandler;
import io.nemolens.handlers.record.Span;
import io.nemolens.poison.Disposition;
import io.nemolens.poison.PoisonIndex;
import io.nemolens.poison.PoisonReplayer;
import io.nemolens.poison.QueueDepthMonitor;
import io.nemolens.poison.ReplayRequest;
import io.nemolens.testing.ArchiveReader;
import io.nemolens.testing.BrokerClient;
import io.nemolens.testing.ConsumerExtension;
import io.nemolens.testing.TestTopology;
import java.io.IOException;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.openqa.selenium.By;
import org.openqa.selenium.Cookie;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.chromium.HasCdp;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The console in a real browser (headless Chromium through Selenium) against a running consumer and the
 * real broker, on a management port of its own: what an operator does with it, step by step, and what
 * it must never do (answer without a login, accept a POST without the CSRF token, show a secret, or
 * cost the poison messages a delivery by being looked at). Screenshots go to
 * {@code target/console-screenshots/}, and also to {@code -Dlens.console.screenshots=DIR} (README's images).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleBrowserIT {

    static final String USER = "operator";
    static final String PASSWORD =
            "console-it-" + Long.toHexString(ThreadLocalRandom.current().nextLong());
    static final Duration WAIT = Duration.ofSeconds(30);

    /** Spans named {@code fail-*} fail while broken; {@code always-fail} always does. */
    @Configuration(proxyBeanMethods = false)
    static class Handlers {
        static volatile boolean broken = true;

        @Bean
        SpanHandler breakableSpans() {
            return batch -> {
                for (Span span : batch.records()) {
                    if (span.name().equals("always-fail")
                            || (broken && span.name().startsWith("fail-"))) {
                        throw new IllegalStateException("handler bug: cannot take " + span.name());
                    }
                }
            };
        }
    }

    /**
     * The archive's store: its own folder, as by default, which fails while broken as an unreachable object
     * store would (the archive keeps the files and tries again with backoff).
     */
    @Configuration(proxyBeanMethods = false)
    static class Store {
        static volatile boolean broken;

        @Bean
        ArchiveStore breakableStore(LensArchiveProperties archive) {
            LocalFolder folder = new LocalFolder(archive.path());
            return new ArchiveStore() {
                @Override
                public String location() {
                    return folder.location();
                }

                @Override
                public String name(FileName file, int variant) {
                    return folder.name(file, variant);
                }

                @Override
                public boolean mayHold(String name) {
                    return folder.mayHold(name);
                }

                @Override
                public void cleanUp(String instanceId) {
                    folder.cleanUp(instanceId);
                }

                @Override
                public void publish(StagedFile file) throws IOException {
                    if (broken) {
                        throw new IOException("store unreachable: connection refused");
                    }
                    folder.publish(file);
                }

                @Override
                public boolean holds(String name, String contentId) {
                    return folder.holds(name, contentId);
                }

                @Override
                public void close() {
                    folder.close();
                }
            };
        }
    }

    /** The tables' catalog: an SQLite file of this run's. */
    static final String CATALOG =
            "jdbc:sqlite:" + Path.of(System.getProperty("java.io.tmpdir"), "lens-console-it-" + hex(8) + ".db");

    /**
     * One application for the whole class (the browser's session spans the tests), its files committed after
     * 1 s and appended to Iceberg tables (an SQLite catalog) every 500 ms, its actuator exposing what the service's
     * does.
     */
    @RegisterExtension
    static final ConsumerExtension lens = ConsumerExtension.of(ConsoleApplication.class)
            .with(Handlers.class, Store.class)
            .properties(Map.of(
                    "management.server.port", "0",
                    "management.endpoints.web.exposure.include", "health,info,prometheus",
                    "spring.security.user.name", USER,
                    "spring.security.user.password", PASSWORD,
                    "lens.archive.max-age", "1s",
                    "lens.archive.catalog.uri", CATALOG,
                    "lens.archive.catalog.commit-interval", "500ms",
                    "lens.console.sample-interval", "1s",
                    "lens.consumer.handler-retry.max-attempts", "1",
                    "lens.poison.depth-poll-interval", "300ms"));

    private TestTopology topology;
    private BrokerClient client;
    private WebDriver browser;
    private String console;
    private int publicPort;
    private final List<String> pageSources = new ArrayList<>();

    @BeforeAll
    void start() throws Exception {
        topology = lens.topology();
        client = lens.client();
        publicPort = lens.consumer().port();
        console = "http://127.0.0.1:" + lens.consumer().managementPort() + "/console";
        browser = chromium();
    }

    @AfterAll
    void stop() {
        if (browser != null) {
            browser.quit();
        }
    }

    static WebDriver chromium() throws Exception {
        Path profile = Files.createTempDirectory("lens-console-chromium");
        ChromeOptions options = new ChromeOptions();
        options.setBinary("/usr/bin/chromium");
        options.addArguments(
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--window-size=1400,1300",
                "--user-data-dir=" + profile.toAbsolutePath());
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(Path.of("/usr/bin/chromedriver").toFile())
                .usingAnyFreePort()
                .build();
        return new ChromeDriver(service, options);
    }

    @Test
    void withoutLoginThereIsA401AndWithoutTheCsrfTokenNoPost() throws Exception {
        HttpClient http = HttpClient.newBuilder()
                .cookieHandler(new CookieManager())
                .followRedirects(HttpClient.Redirect.NEVER)
                .build();
        HttpResponse<String> anonymous = http.send(get(console), HttpResponse.BodyHandlers.ofString());
        assertThat(anonymous.statusCode()).isEqualTo(401);
        assertThat(anonymous.body()).contains("id=\"login-form\"");
        assertThat(http.send(get(console + "/poison"), HttpResponse.BodyHandlers.ofString())
                        .statusCode())
                .isEqualTo(401);
        assertThat(http.send(get(console + "/api/flow"), HttpResponse.BodyHandlers.ofString())
                        .statusCode())
                .isEqualTo(401);

        // the actuator's own chain is unchanged: health and prometheus answer anonymously beside the console
        String actuator = console.replace("/console", "/actuator");
        // (answered anonymously: 200, or 503 while an indicator is DOWN, never 401)
        assertThat(http.send(get(actuator + "/health"), HttpResponse.BodyHandlers.ofString())
                        .statusCode())
                .isIn(200, 503);
        assertThat(http.send(get(actuator + "/prometheus"), HttpResponse.BodyHandlers.ofString())
                        .body())
                .contains("lens_queue_depth");

        // the console is on the management port only
        HttpResponse<String> publicPortAnswer = http.send(
                get("http://127.0.0.1:" + publicPort + "/console/login"), HttpResponse.BodyHandlers.ofString());
        assertThat(publicPortAnswer.statusCode()).isIn(401, 404);
        assertThat(publicPortAnswer.body()).doesNotContain("login-form");

        // a POST without the CSRF token is refused, logged in or not
        HttpResponse<String> forged =
                http.send(form(console + "/poison/reindex", "confirm=true"), HttpResponse.BodyHandlers.ofString());
        assertThat(forged.statusCode()).isEqualTo(403);
        String token = csrf(http.send(get(console + "/login"), HttpResponse.BodyHandlers.ofString())
                .body());
        HttpResponse<String> login = http.send(
                form(console + "/login", "username=" + USER + "&password=" + enc(PASSWORD) + "&_csrf=" + enc(token)),
                HttpResponse.BodyHandlers.ofString());
        assertThat(login.statusCode()).isEqualTo(302);
        assertThat(login.headers().firstValue("Location").orElse("")).doesNotContain("error");
        assertThat(http.send(get(console), HttpResponse.BodyHandlers.ofString()).statusCode())
                .isEqualTo(200);
        HttpResponse<String> loggedInForged =
                http.send(form(console + "/poison/reindex", "confirm=true"), HttpResponse.BodyHandlers.ofString());
        assertThat(loggedInForged.statusCode()).isEqualTo(403);
        // the actuator's Basic auth is not a way into the console's actions either
        HttpResponse<String> basic = http.send(
                HttpRequest.newBuilder(URI.create(console + "/poison/reindex"))
                        .header(
                                "Authorization",
                                "Basic "
                                        + java.util.Base64.getEncoder()
                                                .encodeToString(
                                                        (USER + ":" + PASSWORD).getBytes(StandardCharsets.UTF_8)))
                        .header("Content-Type", "application/x-www-form-urlencoded")
                        .POST(HttpRequest.BodyPublishers.ofString("confirm=true"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(basic.statusCode()).isEqualTo(403);
    }

    @Test
    void anOperatorWatchesTheFlowGroupsThePoisonQueueAndReplaysAGroup() throws Exception {
        String x = topology.exchange();
        // log in
        browser.get(console);
        screenshot("login");
        find(By.id("username")).sendKeys(USER);
        find(By.id("password")).sendKeys(PASSWORD);
        find(By.id("login")).click();
        await().atMost(WAIT)
                .until(() -> browser.findElements(By.id("chart-messages")).size() == 1);
        assertThat(find(By.id("user")).getText()).isEqualTo(USER);

        // good messages: the counts and the chart move
        double ackedBefore = number(find(By.id("outcome-acked")).getText());
        for (int i = 0; i < 6; i++) {
            client.publish(x, "otlp_spans", spans("run-good", "train_step", "forward_backward"));
            client.publish(x, "otlp_logs", logs("run-good", "step " + i));
        }
        await().atMost(WAIT).until(() -> number(find(By.id("outcome-acked")).getText()) >= ackedBefore + 12);
        // (the chart's samples come every second: the earlier tests' spans may be in them already, these logs not)
        await().atMost(WAIT)
                .until(() -> chartTotal("messages", "spans") > 0
                        && chartTotal("records", "spans") > 0
                        && chartTotal("messages", "logs") > 0);
        assertThat(find(By.id("health-lensListener")).getText()).contains("UP");
        assertThat(find(By.id("health-rabbit")).getText()).contains("UP");
        assertThat(find(By.id("archive")).getText()).contains("files committed");
        // where the archive's files go, and what waits for it
        assertThat(find(By.id("store-location")).getText())
                .isEqualTo(lens.archive().toAbsolutePath().toString());
        assertThat(find(By.id("store")).getText())
                .contains("where committed files go", "upload lag", "files waiting for the store");
        assertThat(find(By.id("store-lag")).getText()).matches("\\d+\\.\\d s");
        assertThat(find(By.id("store-files-waiting")).getText()).matches("\\d+");
        assertThat(find(By.id("store-bytes-waiting")).getText()).matches("\\d+ B|\\d+\\.\\d [KMGT]iB");
        assertThat(browser.findElements(By.id("claims")))
                .as("no claim registry, no claims")
                .isEmpty();
        // the tables the files are appended to: where, what waits, when files were last appended
        await().atMost(WAIT).until(() -> {
            browser.navigate().refresh();
            return !find(By.id("tables-last-append")).getText().equals("none yet");
        });
        assertThat(find(By.id("tables-location")).getText()).startsWith("iceberg catalog lens at " + CATALOG);
        assertThat(find(By.id("tables")).getText())
                .contains("files waiting for their tables", "files appended since start", "last append");
        assertThat(find(By.id("tables-waiting")).getText()).matches("\\d+");
        assertThat(Long.parseLong(find(By.id("tables-appended")).getText())).isPositive();
        assertThat(find(By.id("tables-last-append")).getText()).matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z");
        screenshot("overview");

        // bad messages: three a fix will cure, one that always fails, two that never decode
        for (int i = 1; i <= 3; i++) {
            client.publish(x, "otlp_spans", spans("run-fixed", "fail-" + i));
        }
        client.publish(x, "otlp_spans", spans("run-doomed", "always-fail"));
        client.publish(x, "otlp_spans", "{\"resourceSpans\":[{\"resource\":".getBytes(StandardCharsets.UTF_8));
        client.publish(x, "otlp_logs", "{\"resourceLogs\":[ broken".getBytes(StandardCharsets.UTF_8));
        await().atMost(WAIT).until(() -> client.messageCount(topology.poisonQueue()) == 6);

        browser.get(console + "/poison");
        await().atMost(WAIT).until(() -> {
            browser.navigate().refresh();
            return groups().values().stream().mapToInt(Integer::intValue).sum() == 6;
        });
        Map<String, Integer> groups = groups();
        assertThat(groups)
                .containsEntry(
                        "handler|handler failed after # attempt(s): java.lang.IllegalStateException: handler bug: cannot take fail-#",
                        3)
                .containsEntry(
                        "handler|handler failed after # attempt(s): java.lang.IllegalStateException: handler bug: cannot take always-fail",
                        1)
                .hasSize(4);
        assertThat(groups.entrySet().stream()
                        .filter(e -> e.getKey().startsWith("decode|"))
                        .mapToInt(Map.Entry::getValue)
                        .sum())
                .isEqualTo(2);
        assertThat(find(By.id("unindexed")).getText()).isEqualTo("0");
        screenshot("poison");

        // filters: by run id, by signal
        browser.get(console + "/poison?run=run-fixed");
        assertThat(groups())
                .containsOnlyKeys(
                        "handler|handler failed after # attempt(s): java.lang.IllegalStateException: handler bug: cannot take fail-#");
        browser.get(console + "/poison?signal=logs");
        assertThat(groups().keySet()).singleElement().asString().startsWith("decode|");

        // a message: headers, stack trace, decoded body
        openGroup("cannot take fail-#");
        findAll(By.className("message-link")).get(0).click();
        assertThat(header("x-lens-failure-category")).isEqualTo("handler");
        assertThat(header("x-lens-signal")).isEqualTo("spans");
        assertThat(find(By.id("stack-trace")).getText()).contains("IllegalStateException");
        assertThat(find(By.id("decoded")).getText()).contains("1 span").contains("run-fixed");
        screenshot("message");
        browser.get(console + "/poison?category=decode");
        findAll(By.className("group-link")).get(0).click();
        findAll(By.className("message-link")).get(0).click();
        assertThat(find(By.id("not-decoded")).isDisplayed()).isTrue();
        assertThat(find(By.id("body-text")).getText()).startsWith("{\"resource");

        // looking costs nothing: many views of every page, then the broker's own delivery counts
        for (int i = 0; i < 25; i++) {
            browser.get(console + "/poison");
            browser.get(console + "/poison?category=handler");
            openGroup("cannot take fail-#");
            findAll(By.className("message-link")).get(i % 3).click();
            assertThat(find(By.id("message-category")).getText()).isEqualTo("handler");
        }
        browser.get(console);

        // the dry run of a group replay: what would happen, and nothing happens
        browser.get(console + "/poison");
        openGroup("cannot take fail-#");
        find(By.id("rate")).clear();
        find(By.id("rate")).sendKeys("20");
        screenshot("group");
        find(By.id("preview-replay")).click();
        assertThat(find(By.id("would-replay")).getText()).isEqualTo("3");
        assertThat(find(By.id("summary")).getText()).startsWith("dry run, nothing moved");
        screenshot("dry-run");
        assertThat(client.messageCount(topology.poisonQueue())).isEqualTo(6);
        assertThat(deliveryCounts())
                .as("poison deliveries after 100+ views and a dry run")
                .containsOnly(0L);

        // the handler is fixed: replay the group, it empties, its records reach the archive
        Handlers.broken = false;
        find(By.id("confirm")).click();
        assertThat(find(By.id("done")).getText()).startsWith("replayed 3, skipped 3");
        await().atMost(WAIT).until(() -> {
            browser.navigate().refresh();
            return !groups().containsKey(
                            "handler|handler failed after # attempt(s): java.lang.IllegalStateException: handler bug: cannot take fail-#");
        });
        await().atMost(WAIT).until(() -> archivedSpans("run-fixed") == 3);

        // one that fails again comes back with its replay count
        openGroup("cannot take always-fail");
        find(By.id("preview-replay")).click();
        find(By.id("confirm")).click();
        await().atMost(WAIT).until(() -> {
            browser.get(console + "/poison?run=run-doomed");
            List<WebElement> rows = browser.findElements(By.cssSelector("tr.group"));
            return rows.size() == 1 && rows.get(0).getText().endsWith(" 1");
        });
        openGroup("cannot take always-fail");
        assertThat(find(By.className("replays")).getText()).isEqualTo("1");
        findAll(By.className("message-link")).get(0).click();
        assertThat(header("x-lens-replay-count")).isEqualTo("1");

        // discard the undecodable ones, only once confirmed
        browser.get(console + "/poison?category=decode");
        findAll(By.className("group-link")).get(0).click();
        find(By.id("preview-discard")).click();
        assertThat(find(By.id("would-discard")).getText()).isEqualTo("1");
        find(By.id("confirm")).click();
        assertThat(find(By.id("refused")).getText()).contains("confirm it on the preview page");
        assertThat(client.messageCount(topology.poisonQueue())).isEqualTo(3);
        browser.get(console + "/poison?category=decode");
        findAll(By.className("group-link")).get(0).click();
        find(By.id("preview-discard")).click();
        find(By.id("confirm-discard")).click();
        find(By.id("confirm")).click();
        assertThat(find(By.id("done")).getText()).contains("discarded 1");
        await().atMost(WAIT).until(() -> client.messageCount(topology.poisonQueue()) == 2);

        // every action is in the log, with who did it
        await().atMost(WAIT).until(() -> {
            browser.get(console + "/actions");
            return browser.findElements(By.cssSelector("tr.action")).size() >= 3;
        });
        List<String> actions = browser.findElements(By.cssSelector("tr.action")).stream()
                .map(WebElement::getText)
                .toList();
        assertThat(actions).allSatisfy(a -> assertThat(a).contains(USER));
        assertThat(actions.get(0)).contains("discard").contains("discarded 1");
        assertThat(actions).anySatisfy(a -> assertThat(a).contains("replay").contains("replayed 3"));
        screenshot("actions");

        // no page showed a secret
        assertThat(pageSources).isNotEmpty().noneMatch(s -> s.contains(PASSWORD));
    }

    /**
     * While the archive's store fails, the overview shows what waits for it and the store's error, highlighted,
     * beside the archive's DOWN health; once it takes files again, the backlog goes, and the last error stays,
     * no longer highlighted.
     */
    @Test
    void theOverviewShowsTheStoresBacklogAndItsErrorWhileItFails() throws Exception {
        String run = "run-store-" + hex(4);
        browser.manage().deleteAllCookies();
        logIn();
        Store.broken = true;
        try {
            for (int i = 0; i < 3; i++) {
                client.publish(topology.exchange(), "otlp_spans", spans(run, "train_step"));
            }
            await().atMost(WAIT).until(() -> {
                browser.get(console);
                return !browser.findElements(By.cssSelector("#store-error.alert"))
                                .isEmpty()
                        && number(find(By.id("store-files-waiting")).getText()) >= 1
                        && number(find(By.id("store-lag")).getText().replace(" s", "")) >= 1;
            });
            pageSources.add(browser.getPageSource());
            assertThat(find(By.id("store-error")).getText()).startsWith("The store fails:");
            assertThat(find(By.id("store-error-message")).getText()).isEqualTo("store unreachable: connection refused");
            assertThat(find(By.id("store-error-at")).getText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
            assertThat(find(By.id("store-error")).getText())
                    .containsPattern("\\(at [0-9T:Z-]+; \\d+ failed attempts? since start\\)$");
            assertThat(find(By.id("store-bytes-waiting")).getText()).doesNotStartWith("0 ");
            assertThat(find(By.id("health-archive")).getText())
                    .contains("DOWN")
                    .contains("store unreachable: connection refused");
            assertThat(archivedSpans(run))
                    .as("nothing of the run reached the archive")
                    .isIn(-1L, 0L);
            screenshot("store-failing");
        } finally {
            Store.broken = false;
        }
        // the store takes files again (after the archive's backoff): the backlog goes, the error is history
        await().atMost(Duration.ofSeconds(90)).until(() -> {
            browser.get(console);
            return find(By.id("store-files-waiting")).getText().equals("0")
                    && find(By.id("health-archive")).getText().contains("UP");
        });
        assertThat(find(By.id("store-bytes-waiting")).getText()).isEqualTo("0 B");
        assertThat(browser.findElements(By.cssSelector("#store-error.alert"))).isEmpty();
        assertThat(find(By.id("store-error")).getText())
                .startsWith("Last store error (the store takes files again):")
                .contains("store unreachable: connection refused");
        assertThat(archivedSpans(run)).isEqualTo(3);
        browser.manage().deleteAllCookies();
    }

    /**
     * Right after a discard, the poison page compares the index (which has just lost the discarded
     * messages) with a depth read after it, never with the depth of the last poll, which can be from before
     * the discard ({@code lens.poison.depth-poll-interval}, 15 s by default): the poll is stopped here, so
     * its last depth is as old as the test makes it. And the session cookie is {@code SameSite=Lax}.
     */
    @Test
    void afterADiscardThePoisonPageShowsNoUnindexedMessagesThatDoNotExist() throws Exception {
        String run = "run-stale-depth-" + hex(4);
        String mine = console + "/poison?run=" + run;
        QueueDepthMonitor poll = lens.bean(QueueDepthMonitor.class);
        browser.manage().deleteAllCookies();
        try {
            logIn();
            Cookie session = browser.manage().getCookieNamed("JSESSIONID");
            assertThat(session).as("the console's session cookie").isNotNull();
            assertThat(session.getSameSite()).isEqualTo("Lax");
            assertThat(session.isHttpOnly()).isTrue();
            // WebDriver says Lax for a cookie without the attribute too (Chromium's default); the browser's
            // own record says whether the server set it
            assertThat(storedCookie("JSESSIONID").get("sameSite")).isEqualTo("Lax");

            for (int i = 0; i < 5; i++) {
                client.publish(topology.exchange(), "otlp_spans", spans(run, "always-fail"));
            }
            await().atMost(WAIT).until(() -> {
                browser.get(mine);
                return groups().values().stream().mapToInt(Integer::intValue).sum() == 5;
            });
            // the poll has seen them (no unindexed message before the discard either); then it stops
            await().atMost(WAIT).until(() -> {
                browser.get(mine);
                return find(By.id("depth"))
                        .getText()
                        .equals(String.valueOf(client.messageCount(topology.poisonQueue())));
            });
            assertThat(find(By.id("unindexed")).getText()).isEqualTo("0");
            poll.stop();

            // discard three of the five: the other two stay in the queue and in the index
            findAll(By.className("group-link")).get(0).click();
            List<WebElement> boxes = findAll(By.cssSelector("tr.message input[type=checkbox]"));
            assertThat(boxes).hasSize(5);
            boxes.get(3).click();
            boxes.get(4).click();
            find(By.id("preview-discard")).click();
            assertThat(find(By.id("would-discard")).getText()).isEqualTo("3");
            find(By.id("confirm-discard")).click();
            find(By.id("confirm")).click();
            assertThat(find(By.id("done")).getText()).contains("discarded 3");
            assertNothingUnindexed();
            await().atMost(WAIT).until(() -> {
                browser.get(mine);
                return groups().values().stream().mapToInt(Integer::intValue).sum() == 2;
            });
            assertNothingUnindexed();
            screenshot("poison-after-discard");
            assertThat(find(By.id("depth")).getText())
                    .as("the depth shown is read after the discard")
                    .isEqualTo(String.valueOf(client.messageCount(topology.poisonQueue())));
            browser.get(console);
            assertThat(find(By.id("unindexed")).getText()).isEqualTo("0");

            // the last two go too: the other tests' messages are all that remains
            browser.get(mine);
            findAll(By.className("group-link")).get(0).click();
            find(By.id("preview-discard")).click();
            find(By.id("confirm-discard")).click();
            find(By.id("confirm")).click();
            assertThat(find(By.id("done")).getText()).contains("discarded 2");
            await().atMost(WAIT).until(() -> {
                browser.get(mine);
                return !browser.findElements(By.id("no-groups")).isEmpty();
            });
            assertNothingUnindexed();
        } finally {
            poll.start();
            browser.manage().deleteAllCookies();
            discardWhatIsLeftOf(run);
        }
    }

    /** A cookie of the console as the browser stores it (DevTools' record: attributes the server did not set are absent). */
    private Map<?, ?> storedCookie(String name) {
        Map<String, Object> answer =
                ((HasCdp) browser).executeCdpCommand("Network.getCookies", Map.of("urls", List.of(console)));
        return ((List<?>) answer.get("cookies"))
                .stream()
                        .map(c -> (Map<?, ?>) c)
                        .filter(c -> name.equals(c.get("name")))
                        .findFirst()
                        .orElseThrow(() -> new AssertionError("no cookie " + name + " in " + answer));
    }

    /** After a failure, so that the other tests find the poison queue as they expect it. */
    private void discardWhatIsLeftOf(String run) throws Exception {
        Set<String> keys = lens.bean(PoisonIndex.class).entries().stream()
                .filter(e -> e.runIds().contains(run))
                .map(PoisonIndex.Entry::key)
                .collect(Collectors.toSet());
        if (!keys.isEmpty()) {
            lens.bean(PoisonReplayer.class)
                    .move(ReplayRequest.selection(keys, false, 0), Disposition.DISCARD, "test clean-up");
        }
    }

    /** The page shows no message "not indexed" and offers no re-index. */
    private void assertNothingUnindexed() {
        pageSources.add(browser.getPageSource());
        assertThat(find(By.id("unindexed")).getText()).as("not indexed").isEqualTo("0");
        assertThat(browser.findElements(By.id("unindexed-note")))
                .as("the note on unindexed messages")
                .isEmpty();
        assertThat(browser.findElements(By.id("reindex")))
                .as("the offer to index the unindexed")
                .isEmpty();
    }

    /**
     * Logs in through the form (the browser has no session). Once, on a fresh CI machine, the browser stayed on the
     * login form after the click (the server logged no request): the form is then filled and sent once more, and a
     * second failure says where the browser is.
     */
    private void logIn() {
        for (int attempt = 1; ; attempt++) {
            browser.get(console); // answered 401 with the login form, at the console's own address
            find(By.id("login-form"));
            find(By.id("username")).sendKeys(USER);
            find(By.id("password")).sendKeys(PASSWORD);
            find(By.id("login")).click();
            try {
                await().atMost(Duration.ofSeconds(15))
                        .until(() -> browser.findElements(By.id("user")).size() == 1);
                return;
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                if (attempt == 2) {
                    throw new AssertionError(
                            "not logged in after two tries; the browser is at " + browser.getCurrentUrl() + ": "
                                    + browser.getPageSource(),
                            e);
                }
            }
        }
    }

    /** The poison queue's messages' delivery counts, read once (which itself costs each one delivery). */
    private List<Long> deliveryCounts() throws Exception {
        com.rabbitmq.client.Channel ch = client.channel();
        long depth = ch.queueDeclarePassive(topology.poisonQueue()).getMessageCount();
        List<Long> counts = new ArrayList<>();
        long last = 0;
        for (int i = 0; i < depth; i++) {
            GetResponse r = ch.basicGet(topology.poisonQueue(), false);
            Object c = r.getProps().getHeaders() == null
                    ? null
                    : r.getProps().getHeaders().get("x-delivery-count");
            counts.add(c instanceof Number n ? n.longValue() : 0L);
            last = r.getEnvelope().getDeliveryTag();
        }
        ch.basicNack(last, true, true);
        await().atMost(WAIT).until(() -> client.messageCount(topology.poisonQueue()) == depth);
        return counts;
    }

    private long archivedSpans(String run) {
        try (ArchiveReader reader = new ArchiveReader(lens.archive())) {
            return ((Number) reader.scalar("SELECT count(*) FROM %s WHERE run_id = '" + run + "'", "spans"))
                    .longValue();
        } catch (SQLException e) {
            return -1; // no committed file yet
        }
    }

    private double chartTotal(String chart, String signal) {
        Object v = ((JavascriptExecutor) browser)
                .executeScript(
                        "const f = window.lensFlow; return f ? f[arguments[0]][arguments[1]].reduce((a, b) => a + b, 0) : 0;",
                        chart,
                        signal);
        return ((Number) v).doubleValue();
    }

    /** The groups on the poison page: "category|reason" to count. */
    private Map<String, Integer> groups() {
        Map<String, Integer> out = new LinkedHashMap<>();
        pageSources.add(browser.getPageSource());
        for (WebElement row : browser.findElements(By.cssSelector("tr.group"))) {
            String reason = row.findElement(By.className("group-link")).getText();
            out.put(
                    row.getDomAttribute("data-category") + "|" + reason,
                    Integer.parseInt(row.getDomAttribute("data-count")));
        }
        return out;
    }

    private void openGroup(String reasonEnd) {
        browser.get(console + "/poison");
        browser.findElements(By.className("group-link")).stream()
                .filter(a -> a.getText().endsWith(reasonEnd))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no group ending with " + reasonEnd))
                .click();
        pageSources.add(browser.getPageSource());
    }

    private String header(String name) {
        pageSources.add(browser.getPageSource());
        return find(By.cssSelector("tr[data-header='" + name + "'] td:nth-child(2)"))
                .getText();
    }

    private void screenshot(String name) throws Exception {
        pageSources.add(browser.getPageSource());
        Path png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.FILE).toPath();
        Path dir = Files.createDirectories(Path.of("target", "console-screenshots"));
        Files.copy(png, dir.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
        String docs = System.getProperty("lens.console.screenshots", "");
        if (!docs.isBlank()) {
            Files.copy(
                    png,
                    Files.createDirectories(Path.of(docs)).resolve(name + ".png"),
                    StandardCopyOption.REPLACE_EXISTING);
        }
    }

    /** The first element found, waiting for it (a click's page may still be loading). */
    private WebElement find(By by) {
        return findAll(by).get(0);
    }

    private List<WebElement> findAll(By by) {
        return await().atMost(WAIT).until(() -> browser.findElements(by), found -> !found.isEmpty());
    }

    private static double number(String text) {
        return Double.parseDouble(text.replace(",", "").trim());
    }

    private static String csrf(String html) {
        Matcher m = Pattern.compile("name=\"_csrf\" value=\"([^\"]+)\"").matcher(html);
        assertThat(m.find()).as("a CSRF token in the login form").isTrue();
        return m.group(1);
    }

    private static HttpRequest get(String url) {
        return HttpRequest.newBuilder(URI.create(url)).GET().build();
    }

    private static HttpRequest form(String url, String body) {
        return HttpRequest.newBuilder(URI.create(url))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    /** An OTLP/JSON trace request, one span per name, of this run. */
    static byte[] spans(String run, String... names) {
        StringBuilder spans = new StringBuilder();
        for (String name : names) {
            if (spans.length() > 0) {
                spans.append(',');
            }
            spans.append("{\"traceId\":\"")
                    .append(hex(16))
                    .append("\",\"spanId\":\"")
                    .append(hex(8))
                    .append("\",\"name\":\"")
                    .append(name)
                    .append(
                            "\",\"kind\":1,\"startTimeUnixNano\":\"1767225600000000000\",\"endTimeUnixNano\":\"1767225600002000000\"}");
        }
        return ("{\"resourceSpans\":[{\"resource\":{\"attributes\":[{\"key\":\"nemo.run.id\",\"value\":{\"stringValue\":\""
                        + run + "\"}}]},\"scopeSpans\":[{\"scope\":{},\"spans\":[" + spans + "]}]}]}")
                .getBytes(StandardCharsets.UTF_8);
    }

    /** An OTLP/JSON logs request with one record. */
    static byte[] logs(String run, String body) {
        return ("{\"resourceLogs\":[{\"resource\":{\"attributes\":[{\"key\":\"nemo.run.id\",\"value\":{\"stringValue\":\""
                        + run
                        + "\"}}]},\"scopeLogs\":[{\"scope\":{},\"logRecords\":[{\"timeUnixNano\":\"1767225600000000000\","
                        + "\"severityNumber\":9,\"body\":{\"stringValue\":\"" + body + "\"}}]}]}]}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static String hex(int bytes) {
        byte[] b = new byte[bytes];
        ThreadLocalRandom.current().nextBytes(b);
        return HexFormat.of().formatHex(b);
    }
}
