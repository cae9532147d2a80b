package io.tsdbwriter.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.lab.WriterCellRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TelegrafPeerTest {

    @TempDir
    Path dir;

    @Test
    void configReadsOurPointRecordsIntoInfluxOutput() {
        String c = TelegrafPeer.config("127.0.0.1:1,127.0.0.1:2", "t1", "g1", "http://127.0.0.1:8428/");
        assertThat(c)
                .contains(
                        "brokers = [\"127.0.0.1:1\", \"127.0.0.1:2\"]",
                        "topics = [\"t1\"]",
                        "consumer_group = \"g1\"",
                        "offset = \"oldest\"",
                        "version = \"3.9.0\"",
                        "data_format = \"json\"",
                        "json_name_key = \"metric\"",
                        "json_time_key = \"timestamp\"",
                        "json_time_format = \"unix_ms\"",
                        "[[outputs.influxdb]]",
                        "urls = [\"http://127.0.0.1:8428\"]");
    }

    @Test
    void readsThisProcessFromProc() throws Exception {
        long pid = ProcessHandle.current().pid();
        assertThat(TelegrafPeer.cpuSeconds(pid)).isPositive();
        assertThat(TelegrafPeer.peakRssBytes(pid)).isGreaterThan(1 << 20);
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
        List<TelegrafPeer.Row> rows = TelegrafPeer.writerRows(dir);
        assertThat(rows).hasSize(2);
        assertThat(rows.get(1).name()).isEqualTo("tsdb-writer cell-03 P=3 async (AOT cache stale: not used)");
        assertThat(rows.get(0).name()).isEqualTo("tsdb-writer cell-01 P=1 async (AOT cache)");
        assertThat(rows.get(0).cpuPerMillion()).isEqualTo(2.5);
        String table = TelegrafPeer.table(
                List.of(rows.get(0), new TelegrafPeer.Row("telegraf", 1_000_000, 12.75, 20, 174_063_616)));
        assertThat(table)
                .contains(
                        "| tsdb-writer cell-01 P=1 async (AOT cache) | 1,000,000 | 2.50 | 2.50 | 100,000 | 200 MiB |",
                        "| telegraf | 1,000,000 | 12.75 | 12.75 | 50,000 | 166 MiB |");
    }

    @Test
    void aotCacheOptionOnlyWhenTheCacheIsThereAndJdk25() throws Exception {
        Path jar = Files.writeString(dir.resolve("w.jar"), "x");
        assertThat(WriterCellRunner.aotCacheOption(jar, List.of(), 25)).isEmpty();
        Files.writeString(dir.resolve("w.aot"), "x");
        assertThat(WriterCellRunner.aotCacheOption(jar, List.of(), 25))
                .containsExactly("-XX:AOTCache=" + dir.resolve("w.aot"), "-Xlog:aot=off");
        assertThat(WriterCellRunner.aotCacheOption(jar, List.of(), 21)).isEmpty();
        assertThat(WriterCellRunner.aotCacheOption(jar, List.of("-XX:AOTMode=off"), 25))
                .isEmpty();
    }
}
