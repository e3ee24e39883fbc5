package io.nemolens.console;

import static org.assertj.core.api.Assertions.assertThat;

import io.nemolens.testing.ConsumerExtension;
import java.net.CookieManager;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The console's POST actions refuse bad requests (a negative or non-numeric rate, a missing or unknown
 * disposition, a confirmation that is not true or false) with 400 and the reason on its page, never 500;
 * and its overview shows every health indicator with its details, which it reads server-side even though
 * {@code /actuator/health} shows them only to an authenticated caller. Plain HTTP with the login form and
 * CSRF token, as a browser sends it (no browser needed).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ConsoleRequestsIT {

    static final String USER = "operator";
    static final String PASSWORD =
            "console-it-" + Long.toHexString(ThreadLocalRandom.current().nextLong());

    /** One application for the whole class, its console on a management port of its own. */
    @RegisterExtension
    static final ConsumerExtension lens = ConsumerExtension.of(ConsoleApplication.class)
            .properties(Map.of(
                    "management.server.port",
                    "0",
                    "spring.security.user.name",
                    USER,
                    "spring.security.user.password",
                    PASSWORD,
                    "lens.poison.depth-poll-interval",
                    "300ms"));

    private String console;
    private HttpClient http;
    private String token;

    @BeforeAll
    void logIn() throws Exception {
        console = "http://127.0.0.1:" + lens.consumer().managementPort() + "/console";
        http = HttpClient.newBuilder()
                .cookieHandler(new CookieManager())
                .followRedirects(HttpClient.Redirect.NEVER)
                .connectTimeout(Duration.ofSeconds(10))
                .build();
        String loginToken = csrf(send(get(console + "/login")).body());
        HttpResponse<String> login = send(form(
                console + "/login", "username=" + USER + "&password=" + enc(PASSWORD) + "&_csrf=" + enc(loginToken)));
        assertThat(login.statusCode()).isEqualTo(302);
        assertThat(login.headers().firstValue("Location").orElse("")).doesNotContain("error");
        token = csrf(send(get(console)).body());
    }

    @Test
    void badActionRequestsAreRefusedWith400AndTheReason() throws Exception {
        assertRefused(
                "/poison/preview",
                "key=k1&disposition=replay&rate=-1",
                "the rate must be 0 (no limit) or a positive number");
        assertRefused(
                "/poison/preview",
                "key=k1&disposition=replay&rate=NaN",
                "the rate must be 0 (no limit) or a positive number");
        assertRefused("/poison/preview", "key=k1&disposition=replay&rate=fast", "'rate' must be a number, got 'fast'");
        assertRefused("/poison/preview", "key=k1&rate=1", "the request lacks 'disposition'");
        assertRefused("/poison/preview", "key=k1&disposition=explode", "disposition must be replay, park or discard");
        assertRefused("/poison/preview", "disposition=replay", "select at least one message");
        assertRefused(
                "/poison/act",
                "key=k1&disposition=replay&rate=-5",
                "the rate must be 0 (no limit) or a positive number");
        assertRefused(
                "/poison/act",
                "key=k1&disposition=discard&confirm=maybe",
                "'confirm' must be true or false, got 'maybe'");
        assertRefused("/poison/reindex", "confirm=perhaps", "'confirm' must be true or false, got 'perhaps'");
    }

    @Test
    void theOverviewShowsEveryHealthIndicatorWithItsDetails() throws Exception {
        HttpResponse<String> overview = send(get(console));

        assertThat(overview.statusCode()).isEqualTo(200);
        assertThat(overview.body())
                .contains("id=\"health-rabbit\"")
                .contains("id=\"health-lensListener\"")
                .contains("id=\"health-archive\"")
                .containsPattern("id=\"health-rabbit\">.*version")
                .doesNotContain(">unknown</div><div class=\"l\">free space");
        // while the actuator shows an anonymous caller the status only
        String actuator = console.replace("/console", "/actuator/health");
        HttpResponse<String> anonymous =
                HttpClient.newHttpClient().send(get(actuator), HttpResponse.BodyHandlers.ofString());
        assertThat(anonymous.body()).doesNotContain("components").contains("\"status\"");
    }

    private void assertRefused(String path, String body, String reason) throws Exception {
        HttpResponse<String> response = send(form(console + path, body + "&_csrf=" + enc(token)));
        assertThat(response.statusCode()).as(path + "?" + body).isEqualTo(400);
        assertThat(response.body())
                .as(path + "?" + body)
                .contains("id=\"refused\"")
                .contains(html(reason));
    }

    private HttpResponse<String> send(HttpRequest request) throws Exception {
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static String html(String text) {
        return text.replace("&", "&amp;").replace("'", "&#39;").replace("\"", "&quot;");
    }

    private static String csrf(String html) {
        Matcher m = Pattern.compile("name=\"_csrf\" value=\"([^\"]+)\"").matcher(html);
        assertThat(m.find()).as("a CSRF token in the page").isTrue();
        return m.group(1);
    }

    private static HttpRequest get(String url) {
        return HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(30))
                .GET()
                .build();
    }

    private static HttpRequest form(String url, String body) {
        return HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
