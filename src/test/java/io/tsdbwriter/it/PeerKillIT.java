package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.tsdbwriter.bench.PeerKill;
import io.tsdbwriter.bench.PeerKill.Case;
import io.tsdbwriter.bench.PeerKill.Outcome;
import io.tsdbwriter.it.support.GoBuilds;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.lab.CollectorProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The peer kill comparison of scripts/compare-peers.sh ({@link PeerKill}), case a, small: 100,000 OTLP gauge points
 * (200 series × 500 of 10 instances, one record per scrape as {@code produce --record-format otlp} sends them: 20
 * points, keyed by instance, 3 partitions) fed at 25,000 points/s while the OpenTelemetry Collector (its
 * at-least-once configuration) and tsdb-writer ({@code run --input-format otlp}, remote write 1.0) read them side by
 * side, each into a VictoriaMetrics of its own without deduplication, each killed -9 once its receiver accepted a
 * third and started again on its group. tsdb-writer: every sample stored, no more copies than the records past its
 * commits at the kill hold, exit 0 at SIGTERM. The Collector: its figures add up (stored + missing = produced, copies
 * counted from the raw export), exit 0 at SIGTERM. Skipped without the Collector binary
 * ({@code ~/.cache/tsdb-writer/bin/otelcol}, built by the test command).
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class PeerKillIT {

    @RegisterExtension
    static final Stack stack = Stack.withKafka();

    @Test
    void aKillMidRunLosesNothingOfOursAndIsCountedForTheCollector() throws Exception {
        Path otelcol = Path.of(System.getProperty("user.home"), ".cache", "tsdb-writer", "bin", "otelcol");
        GoBuilds.built(otelcol);
        Path binary = CollectorProcess.locate(null).orElse(null);
        assumeTrue(binary != null, "no OpenTelemetry Collector binary (scripts/lib.sh ensure_otelcol builds it)");
        PeerKill.Settings settings = new PeerKill.Settings(
                stack.bootstrapServers(),
                stack.path("peers"),
                binary,
                200,
                500,
                10,
                3,
                25_000,
                null,
                Duration.ofSeconds(90));
        List<Outcome> both = PeerKill.create(settings).runSideBySide(Case.PEER_KILLED, "peer-kill");
        System.out.print(PeerKill.text(both));
        Outcome collector = both.get(0);
        Outcome ours = both.get(1);

        assertThat(ours.faultMidRun()).as("the kill lands mid-run: %s", ours).isTrue();
        assertThat(ours.missing()).as("%s", ours).isZero();
        assertThat(ours.stored()).as("%s", ours).isEqualTo(100_000);
        assertThat(ours.unexpected()).as("%s", ours).isZero();
        assertThat(ours.duplicated())
                .as("no more copies than a restart reads again: %s", ours)
                .isBetween(0L, ours.replayBound());
        assertThat(ours.exits()).as("%s", ours).isEqualTo("kill -9, 0");

        assertThat(collector.stored() + collector.missing()).as("%s", collector).isEqualTo(collector.produced());
        assertThat(collector.stored()).as("%s", collector).isBetween(0L, 100_000L);
        assertThat(collector.duplicated()).as("copies counted: %s", collector).isNotNegative();
        assertThat(collector.unexpected()).as("%s", collector).isZero();
        assertThat(collector.exits()).as("%s", collector).isEqualTo("kill -9, 0");
    }
}
