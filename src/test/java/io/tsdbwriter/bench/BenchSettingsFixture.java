package io.tsdbwriter.bench;

import io.tsdbwriter.config.KafkaClientConfig;
import io.tsdbwriter.lab.BenchCell;
import io.tsdbwriter.lab.CpuPinning;
import io.tsdbwriter.lab.SourceFeed;
import io.tsdbwriter.write.http.HttpAuthConfig;
import java.nio.file.Path;
import java.util.List;

/**
 * {@link BenchRunner.Settings} of the bench unit tests, nothing started: Kafka at {@code 127.0.0.1:9092},
 * VictoriaMetrics at {@code http://127.0.0.1:8428} (its remote write path as the receiver), topic {@code t}, a
 * synthetic feed (100 points over 10 series, the newest at 1 700 000 000 000 ms, a minute apart), work directory
 * {@code /tmp/w}, writer jar {@code w.jar} run by {@code java} with {@code --log-format json}, no authentication, shared CPUs.
 */
final class BenchSettingsFixture {

    /** A cell of M = N = 1, parallelism 1, asynchronous import writes. */
    static final BenchCell IMPORT = new BenchCell(1, 1, 1, "async", "import", null);

    private BenchSettingsFixture() {}

    /** The settings above with {@code cells}, to be changed further and built. */
    static BenchRunner.Settings.Builder settings(BenchCell... cells) {
        return BenchRunner.Settings.builder()
                .bootstrapServers("127.0.0.1:9092")
                .vmUrl("http://127.0.0.1:8428")
                .topic("t")
                .cells(List.of(cells))
                .feed(SourceFeed.synthetic(10, 100, 1_700_000_000_000L, 60_000))
                .workDir(Path.of("/tmp/w"))
                .jar(Path.of("w.jar"))
                .javaCommand(List.of("java"))
                .extraRunArgs(List.of("--log-format", "json"))
                .commandLine("tsdb-writer bench")
                .kafkaClient(KafkaClientConfig.of("127.0.0.1:9092"))
                .vmHttp(HttpAuthConfig.NONE)
                .remoteWriteUrl("http://127.0.0.1:8428/api/v1/write")
                .placement(CpuPinning.Plan.SHARED);
    }
}
