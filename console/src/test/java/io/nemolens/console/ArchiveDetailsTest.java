package io.nemolens.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * How the overview reads the archive's health details: the claim registry's only when they are there, an
 * error highlighted only while the archive is DOWN because of it, times to the second, byte counts in their
 * unit.
 */
class ArchiveDetailsTest {

    @Test
    void noClaimDetailsNoClaimRegistry() {
        assertThat(ConsoleService.claims("UP", Map.of("store", "/var/lens", "lagSeconds", 0)))
                .isNull();
        assertThat(ConsoleService.claims("UP", Map.of("claims", " "))).isNull();
    }

    @Test
    void theClaimRegistryWithWhatItsHealthSays() {
        ConsoleService.ClaimsState bare = ConsoleService.claims("UP", Map.of("claims", "postgresql://db:5432/lens"));
        assertThat(bare).isNotNull();
        assertThat(bare.location()).isEqualTo("postgresql://db:5432/lens");
        assertThat(bare.waiting()).isNull();
        assertThat(bare.lastError()).isNull();
        assertThat(bare.failing()).isFalse();

        Map<String, Object> details = new HashMap<>();
        details.put("claims", "postgresql://db:5432/lens");
        details.put("claimsWaiting", 12);
        details.put("claimsLastError", "connection refused");
        details.put("error", "the claim registry fails: connection refused");
        details.put("claimsFailingSince", "2026-12-01T16:18:19Z");
        ConsoleService.ClaimsState failing = ConsoleService.claims("DOWN", details);
        assertThat(failing).isNotNull();
        assertThat(failing.waiting()).isEqualTo(12);
        assertThat(failing.lastError()).isEqualTo("connection refused");
        assertThat(failing.failing()).isTrue();
        details.remove("claimsFailingSince");
        ConsoleService.ClaimsState recovered = ConsoleService.claims("UP", details);
        assertThat(recovered).isNotNull();
        assertThat(recovered.failing()).isFalse();
    }

    @Test
    void theTablesWithWhatTheArchivesHealthSaysOfThem() {
        assertThat(ConsoleService.tables(Map.of("store", "/var/lens")))
                .as("no catalog")
                .isNull();

        Map<String, Object> details = new HashMap<>();
        details.put("tables", "iceberg catalog lens at jdbc:postgresql://db:5432/lens, namespace lens");
        details.put("tablesFilesWaiting", 3);
        details.put("tablesLagSeconds", 7);
        details.put("tablesFilesAppended", 120);
        details.put("tablesLastAppendAt", "2026-12-07T01:45:40.848123Z");
        ConsoleService.TablesState up = ConsoleService.tables(details);
        assertThat(up).isNotNull();
        assertThat(up.filesWaiting()).isEqualTo(3);
        assertThat(up.lagSeconds()).isEqualTo(7);
        assertThat(up.filesAppended()).isEqualTo(120);
        assertThat(up.lastAppendAt()).as("to the second").isEqualTo("2026-12-07T01:45:40Z");
        assertThat(up.lastError()).isNull();
        assertThat(up.failing()).isFalse();

        details.put("tablesLastError", "Connection to 127.0.0.1:5432 refused");
        details.put("tablesFailingSince", "2026-12-07T01:46:00Z");
        ConsoleService.TablesState down = ConsoleService.tables(details);
        assertThat(down).isNotNull();
        assertThat(down.lastError()).isEqualTo("Connection to 127.0.0.1:5432 refused");
        assertThat(down.failing()).isTrue();
    }

    @Test
    void theStoreOrRegistryFailsWhileTheHealthSaysSinceWhen() {
        Map<String, Object> down =
                Map.of("storeFailingSince", "2026-01-01T00:00:00Z", "storeLastError", "503 Slow Down");
        assertThat(ConsoleService.failing(down, "storeFailingSince")).isTrue();
        assertThat(ConsoleService.failing(down, "claimsFailingSince")).isFalse();
        assertThat(ConsoleService.failing(Map.of("storeLastError", "503 Slow Down"), "storeFailingSince"))
                .isFalse();
    }

    @Test
    void timesToTheSecondAndBytesInTheirUnit() {
        assertThat(ConsoleService.time("2026-12-01T16:18:19.123456Z")).isEqualTo("2026-12-01T16:18:19Z");
        assertThat(ConsoleService.time("yesterday")).isEqualTo("yesterday");
        assertThat(ConsoleService.time("null")).isNull();
        assertThat(ConsoleService.time(null)).isNull();
        assertThat(ConsoleService.bytes(0)).isEqualTo("0 B");
        assertThat(ConsoleService.bytes(1023)).isEqualTo("1023 B");
        assertThat(ConsoleService.bytes(1536)).isEqualTo("1.5 KiB");
        assertThat(ConsoleService.bytes(5.0 * 1024 * 1024 * 1024)).isEqualTo("5.0 GiB");
        assertThat(ConsoleService.bytes(Double.NaN)).isEqualTo("unknown");
    }

    @Test
    void failedAttemptsInWords() {
        assertThat(store(1).failuresText()).isEqualTo("1 failed attempt since start");
        assertThat(store(7).failuresText()).isEqualTo("7 failed attempts since start");
        assertThat(store(Double.NaN).failuresText()).isNull();
    }

    private static ConsoleService.StoreState store(double failures) {
        return new ConsoleService.StoreState("/var/lens", 0, 0, 0, failures, "x", null, false);
    }
}
