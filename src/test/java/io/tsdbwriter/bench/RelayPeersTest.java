package io.tsdbwriter.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tsdbwriter.bench.RelayPeers.Peer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RelayPeersTest {

    @TempDir
    Path dir;

    @Test
    void readsThisProcessFromProc() throws Exception {
        long pid = ProcessHandle.current().pid();
        assertThat(RelayPeers.cpuSeconds(pid)).isPositive();
        assertThat(RelayPeers.peakRssBytes(pid)).isGreaterThan(1 << 20);
    }

    @Test
    void writerRowsAreTheRelayCellsOnly() throws Exception {
        Files.writeString(
                dir.resolve("cell-01.json"),
                "{\"points\":1000000,\"samples_expected\":1000000,\"cpu_seconds\":2.5,"
                        + "\"elapsed_seconds\":10,\"peak_rss_bytes\":209715200}");
        Files.writeString(
                dir.resolve("cell-01.log"),
                "# java -XX:AOTCache=/x.aot -jar w.jar run --parallelism 1 --write-mode async\n");
        Files.writeString(
                dir.resolve("cell-02.json"), "{\"points\":1000000,\"samples_expected\":12000000,\"cpu_seconds\":5}");
        Files.writeString(
                dir.resolve("cell-03.json"),
                "{\"points\":1000000,\"samples_expected\":1000000,\"cpu_seconds\":4," + "\"aot_cache\":\"stale\"}");
        Files.writeString(
                dir.resolve("cell-03.log"),
                "# java -XX:AOTCache=/x.aot -jar w.jar run --parallelism 3 --write-mode async\n");
        List<RelayPeers.Row> rows = RelayPeers.writerRows(dir);
        assertThat(rows).hasSize(2);
        assertThat(rows.get(1).name()).isEqualTo("tsdb-writer cell-03 P=3 async (AOT cache stale: not used)");
        assertThat(rows.get(0).name()).isEqualTo("tsdb-writer cell-01 P=1 async (AOT cache)");
        assertThat(rows.get(0).cpuPerMillion()).isEqualTo(2.5);
        String table = RelayPeers.table(
                List.of(rows.get(0), new RelayPeers.Row("telegraf", 1_000_000, 12.75, 20, 174_063_616)));
        assertThat(table)
                .contains(
                        "| tsdb-writer cell-01 P=1 async (AOT cache) | 1,000,000 | 2.50 | 2.50 | 100,000 | 200 MiB |",
                        "| telegraf | 1,000,000 | 12.75 | 12.75 | 50,000 | 166 MiB |");
    }

    @Test
    void peersAreCommaSeparatedOrRepeatedInTheirOrder() {
        assertThat(Peer.parse(List.of("telegraf"))).containsExactly(Peer.TELEGRAF);
        assertThat(Peer.parse(List.of("otelcol,telegraf"))).containsExactly(Peer.TELEGRAF, Peer.OTELCOL);
        assertThat(Peer.parse(List.of("otelcol", "telegraf", "otelcol"))).containsExactly(Peer.TELEGRAF, Peer.OTELCOL);
        assertThat(Peer.parse(List.of())).isEmpty();
        assertThatThrownBy(() -> Peer.parse(List.of("telegraf,vmagent")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--peer must be telegraf or otelcol, got 'vmagent'");
        assertThatThrownBy(() -> Peer.parse(List.of("telegraf,")))
                .hasMessage("--peer must be telegraf or otelcol, got ''");
    }

    @Test
    void rowFiguresAndWhatWasStored() {
        RelayPeers.Row r = new RelayPeers.Row("otelcol", 2_000_000, 30, 40, 100 << 20);
        assertThat(r.cpuPerMillion()).isEqualTo(15.0);
        assertThat(r.pointsPerSecond()).isEqualTo(50_000.0);
        assertThat(r.stored()).isEqualTo(-1);
        assertThat(r.storedText()).isEqualTo("–");
        assertThat(r.withStored(2_000_000).storedText()).isEqualTo("all 2,000,000");
        assertThat(r.withStored(1_999_990).storedText()).isEqualTo("1,999,990: 10 missing");
        assertThat(r.withStored(2_000_001).storedText()).isEqualTo("2,000,001: 1 extra");
        assertThat(new RelayPeers.Row("x", 0, 1, 0, -1).cpuPerMillion()).isNaN();
        assertThat(RelayPeers.table(List.of(r.withStored(1_999_990))))
                .startsWith(
                        "| process | points | CPU-s | CPU-s / M points | points/s | peak RSS | stored (read back) |\n")
                .contains("| otelcol | 2,000,000 | 30.00 | 15.00 | 50,000 | 100 MiB | 1,999,990: 10 missing |");
    }

    @Test
    void writerRowsNameOtlpInputAndCarryTheirReadBack() throws Exception {
        Files.writeString(
                dir.resolve("cell-01.json"),
                "{\"points\":500,\"samples_expected\":500,\"cpu_seconds\":1,\"samples_read_back\":500}");
        Files.writeString(
                dir.resolve("cell-01.log"),
                "# java -jar w.jar run --parallelism 1 --write-mode async --input-format otlp --output import\n");
        List<RelayPeers.Row> rows = RelayPeers.writerRows(dir);
        assertThat(rows).singleElement().satisfies(r -> {
            assertThat(r.name()).isEqualTo("tsdb-writer cell-01 P=1 async otlp");
            assertThat(r.stored()).isEqualTo(500);
        });
    }
}
