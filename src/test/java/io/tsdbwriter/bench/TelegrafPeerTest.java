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
