package io.tsdbwriter.bench;

import static io.tsdbwriter.bench.BenchSettingsFixture.IMPORT;
import static io.tsdbwriter.bench.BenchSettingsFixture.settings;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.tsdbwriter.lab.BenchCell;
import io.tsdbwriter.lab.FreshReceiver;
import io.tsdbwriter.lab.SourceFeed;
import io.tsdbwriter.produce.NodeExporterFiles;
import io.tsdbwriter.produce.PointRecords;
import io.tsdbwriter.produce.SourcePoint;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PeerComparisonTest {

    private static final BenchCell RW2 = new BenchCell(1, 1, 1, "async", BenchCell.REMOTE_WRITE_2, null);

    @Test
    void otlpRecordsAreWhatTheWritersAreToldToRead() throws Exception {
        BenchRunner.Settings json = settings(IMPORT).build();
        BenchRunner.Settings otlp = settings(IMPORT).otlpRecords(true).build();
        assertThat(json.writerRunArgs()).containsExactly("--log-format", "json");
        assertThat(otlp.writerRunArgs()).containsExactly("--input-format", "otlp", "--log-format", "json");
        SourcePoint p = new SourcePoint("up", Map.of("instanceNo", "1"), "pk", 1_700_000_000_000L, 1.5);
        assertThat(json.recordEncoder().apply(p)).isEqualTo(PointRecords.encode(p));
        assertThat(new ObjectMapper()
                        .readTree(json.recordEncoder().apply(p))
                        .path("metric")
                        .asText())
                .isEqualTo("up");
        var request = ExportMetricsServiceRequest.parseFrom(otlp.recordEncoder().apply(p));
        var metric = request.getResourceMetrics(0).getScopeMetrics(0).getMetrics(0);
        assertThat(metric.getName()).isEqualTo("up");
        assertThat(metric.getGauge().getDataPointsCount()).isEqualTo(1);
        assertThat(PeerComparison.telegrafTopic(json)).isEqualTo("t");
        assertThat(PeerComparison.telegrafTopic(otlp)).isEqualTo("t-json");
    }

    /**
     * The OTLP backlog holds one record per scrape of the real feed (instance by instance) and exactly the feed's
     * points, those Telegraf's JSON topic gets one per record.
     */
    @Test
    void theOtlpBacklogHoldsOneRecordPerScrapeAndEveryPointOfTheFeed() throws Exception {
        SourceFeed feed = SourceFeed.real(NodeExporterFiles.all(), 25_000, "node", 1_800_000_000_000L);
        List<SourcePoint> points = new ArrayList<>();
        feed.iterator().forEachRemaining(points::add);

        List<String> sent = new ArrayList<>();
        Set<String> instances = new HashSet<>();
        int records = 0;
        for (Iterator<byte[]> it = BenchRunner.scrapeRecords(feed.iterator()); it.hasNext(); ) {
            var rm = ExportMetricsServiceRequest.parseFrom(it.next()).getResourceMetrics(0);
            records++;
            long time = -1;
            for (var metric : rm.getScopeMetrics(0).getMetricsList()) {
                var dps = metric.hasSum()
                        ? metric.getSum().getDataPointsList()
                        : metric.getGauge().getDataPointsList();
                for (var dp : dps) {
                    assertThat(time == -1 || time == dp.getTimeUnixNano())
                            .as("one scrape time")
                            .isTrue();
                    time = dp.getTimeUnixNano();
                    String instance = dp.getAttributesList().stream()
                            .filter(kv -> kv.getKey().equals("instanceNo"))
                            .findFirst()
                            .orElseThrow()
                            .getValue()
                            .getStringValue();
                    instances.add(instance);
                    sent.add(metric.getName() + " "
                            + dp.getAttributesList().stream()
                                    .map(kv -> kv.getKey() + "=" + kv.getValue().getStringValue())
                                    .toList()
                            + " " + dp.getAsDouble() + " @" + dp.getTimeUnixNano() / 1_000_000L);
                }
            }
        }

        assertThat(instances).hasSize(3); // 25,000 points of 10,140 per instance
        // scrape by scrape for 3 instances: 25,000 points end in the 17th scrape, 16 × 3 records and 2 of it
        assertThat(records).isEqualTo(50);
        assertThat(sent)
                .containsExactlyInAnyOrderElementsOf(points.stream()
                        .map(p -> {
                            List<String> labels = new ArrayList<>();
                            p.labels().forEach((k, v) -> labels.add(k + "=" + v));
                            labels.add("productKey=" + p.productKey());
                            return p.metric() + " " + labels + " " + p.value() + " @" + p.timestampMs();
                        })
                        .toList());
    }

    @Test
    void peersRunIntoTheReceiversTheCellsGot() {
        Path bin = Path.of("/bin/true");
        assertThat(PeerComparison.receivers(settings(IMPORT).build())).containsExactly(Optional.empty());
        assertThat(PeerComparison.receivers(
                        settings(IMPORT).victoriaMetricsBinary(bin).build()))
                .containsExactly(Optional.of(FreshReceiver.Kind.VICTORIA_METRICS));
        assertThat(PeerComparison.receivers(settings(RW2, IMPORT)
                        .victoriaMetricsBinary(bin)
                        .prometheusBinary(bin)
                        .build()))
                .containsExactly(
                        Optional.of(FreshReceiver.Kind.PROMETHEUS), Optional.of(FreshReceiver.Kind.VICTORIA_METRICS));
        assertThat(PeerComparison.receivers(
                        settings(RW2, IMPORT).prometheusBinary(bin).build()))
                .containsExactly(Optional.of(FreshReceiver.Kind.PROMETHEUS), Optional.empty());
    }

    @Test
    void ratiosOfEachPeerToEachRelayRow() {
        RelayPeers.Row writer = new RelayPeers.Row("tsdb-writer cell-01 P=1 async otlp", 1_000_000, 2, 10, 1);
        RelayPeers.Row floor = new RelayPeers.Row("floor", 1_000_000, 1, 5, 1);
        RelayPeers.Row telegraf =
                new RelayPeers.Row(TelegrafPeer.ROW_NAME + " → VictoriaMetrics", 1_000_000, 17, 20, 1);
        RelayPeers.Row otelcol = new RelayPeers.Row(CollectorPeer.ROW_NAME + " → Prometheus", 1_000_000, 9, 20, 1);
        assertThat(PeerComparison.ratios(List.of(writer), floor, List.of(telegraf, otelcol)))
                .containsExactly(
                        "tsdb-writer cell-01 P=1 async otlp: writer ÷ floor 2.00× CPU per point (target ≤ 2.0);"
                                + " Telegraf → VictoriaMetrics ÷ writer 8.5× (target ≥ 8 on 5 M points, ≥ 10 on 10 M);"
                                + " Collector → Prometheus ÷ writer 4.5×;");
        assertThat(PeerComparison.ratios(
                        List.of(writer), null, List.of(new RelayPeers.Row(TelegrafPeer.ROW_NAME, 1_000_000, 20, 1, 1))))
                .containsExactly(
                        "tsdb-writer cell-01 P=1 async otlp: Telegraf ÷ writer 10.0× (target ≥ 8 on 5 M points,"
                                + " ≥ 10 on 10 M);");
    }

    @Test
    void theCollectorGetsOneBrokerAndItsOwnGroup() {
        var s = CollectorPeer.settings(
                "10.0.0.1:9092, 10.0.0.2:9092", "t", "g", "http://127.0.0.1:9090/api/v1/write", 8888);
        assertThat(s.bootstrapServers()).isEqualTo("10.0.0.1:9092");
        assertThat(s.topic()).isEqualTo("t");
        assertThat(s.groupId()).isEqualTo("g");
        assertThat(s.remoteWriteUrl()).isEqualTo("http://127.0.0.1:9090/api/v1/write");
        assertThat(s.metricsPort()).isEqualTo(8888);
    }
}
