package io.tsdbwriter.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.tsdbwriter.bench.PeerKill.Case;
import io.tsdbwriter.bench.PeerKill.Outcome;
import io.tsdbwriter.bench.PeerKill.Peer;
import io.tsdbwriter.produce.OtlpScrapeRecords;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PeerKillTest {

    private static PeerKill.Settings settings(int series, int perSeries, int instances) {
        return new PeerKill.Settings(
                "127.0.0.1:9092",
                Path.of("target"),
                Path.of("otelcol"),
                series,
                perSeries,
                instances,
                1,
                1000,
                null,
                Duration.ofMinutes(1));
    }

    @Test
    void theExportIsCountedAgainstTheFeed() {
        PeerKill k = PeerKill.create(settings(2, 3, 1));
        long b = k.baseMs();
        List<String> export = List.of(
                // s00000: points 0, 1, 1 (a copy), 2 (a copy of nothing missing), and one off the one-second grid
                "{\"metric\":{\"__name__\":\"peer_gauge\",\"series\":\"s00000\"},\"values\":[0,1,1,2,2],"
                        + "\"timestamps\":[" + b + "," + (b + 1000) + "," + (b + 1000) + "," + (b + 2000) + ","
                        + (b + 2500) + "]}",
                // s00001: point 2 only (0 and 1 missing), and a point after the feed
                "{\"metric\":{\"__name__\":\"peer_gauge\",\"series\":\"s00001\"},\"values\":[2,3]," + "\"timestamps\":["
                        + (b + 2000) + "," + (b + 3000) + "]}",
                // a series not in the feed
                "{\"metric\":{\"__name__\":\"peer_gauge\",\"series\":\"other\"},\"values\":[0]," + "\"timestamps\":["
                        + b + "]}");

        PeerKill.ReadBack r = k.count(export);

        assertThat(r.stored()).isEqualTo(4); // s00000: 0, 1, 2; s00001: 2
        assertThat(r.duplicated()).isEqualTo(1);
        assertThat(r.unexpected()).isEqualTo(3);
    }

    @Test
    void theInstancesMustShareTheSeriesEvenly() {
        assertThatThrownBy(() -> settings(200, 750, 3)).isInstanceOf(IllegalArgumentException.class);
        assertThat(settings(1000, 1000, 40).points()).isEqualTo(1_000_000);
        assertThat(settings(1000, 1000, 40).seriesPerInstance()).isEqualTo(25);
    }

    @Test
    void theFeedIsOneOtlpRecordPerScrapeKeyedByInstance() throws Exception {
        PeerKill k = PeerKill.create(settings(6, 2, 2));
        List<OtlpScrapeRecords.Record> records = new ArrayList<>();
        k.records().forEachRemaining(records::add);

        // second 0: i000 (s00000..s00002), i001 (s00003..s00005); then second 1 alike
        assertThat(records).extracting(OtlpScrapeRecords.Record::key).containsExactly("i000", "i001", "i000", "i001");
        assertThat(records).extracting(OtlpScrapeRecords.Record::points).containsOnly(3);
        ExportMetricsServiceRequest r =
                ExportMetricsServiceRequest.parseFrom(records.get(3).value());
        assertThat(r.getResourceMetricsCount()).isEqualTo(1);
        ResourceMetrics rm = r.getResourceMetrics(0);
        assertThat(rm.getResource().getAttributesList())
                .extracting(a -> a.getKey() + "=" + a.getValue().getStringValue())
                .contains(OtlpScrapeRecords.SERVICE_INSTANCE_ID + "=i001");
        assertThat(rm.getScopeMetrics(0).getMetricsList()).hasSize(1);
        Metric m = rm.getScopeMetrics(0).getMetrics(0);
        assertThat(m.getName()).isEqualTo(PeerKill.METRIC);
        assertThat(m.getGauge().getDataPointsList())
                .extracting(dp -> dp.getAttributesList().stream()
                                .filter(a -> a.getKey().equals("series"))
                                .findFirst()
                                .orElseThrow()
                                .getValue()
                                .getStringValue()
                        + "@" + (dp.getTimeUnixNano() / 1_000_000 - k.baseMs()) + "=" + dp.getAsDouble())
                .containsExactly("s00003@1000=1.0", "s00004@1000=1.0", "s00005@1000=1.0");
    }

    @Test
    void aMetricIsSummedOverItsLabelSetsAndOnlyItself() {
        String page =
                """
                # HELP vm_rows_inserted_total rows
                vm_rows_inserted_total{type="promremotewrite"} 1500
                vm_rows_inserted_total{type="influx"} 7
                vm_rows_inserted_total_other 9
                otelcol_exporter_send_failed_metric_points_total{exporter="prometheusremotewrite"} 3
                otelcol_exporter_send_failed_metric_points_total{exporter="other"} 2
                """;
        assertThat(PeerKill.sum(page, "vm_rows_inserted_total{type=\"promremotewrite\"}"))
                .isEqualTo(1500);
        assertThat(PeerKill.sum(page, "vm_rows_inserted_total")).isEqualTo(1507);
        assertThat(PeerKill.sum(page, "otelcol_exporter_send_failed_metric_points"))
                .isEqualTo(5);
    }

    @Test
    void theTableShowsEachFigureAndWhatAReceiverCannotTell() {
        Outcome vm = new Outcome(
                Case.RECEIVER_KILLED, Peer.COLLECTOR, 1000, 600, 400, 0, 0, -1, 333, true, -1, "0", "send failed 0");
        Outcome prom = new Outcome(Case.ORDER, Peer.WRITER, 1000, 1000, 0, -1, 0, 0, -1, false, -1, "0", "ok");

        String md = PeerKill.markdown(List.of(vm, prom));
        String text = PeerKill.text(List.of(vm, prom));

        assertThat(md.lines().toList()).hasSize(4);
        assertThat(md)
                .contains(
                        "| b) receiver (VictoriaMetrics) kill -9, restart | OpenTelemetry Collector | 1,000 | 600 | 400 "
                                + "| 0 | — (any order) | 333 | 0 | send failed 0 |")
                .contains("| — (one per timestamp) | 0 | — | 0 | ok |");
        assertThat(text.lines().toList()).hasSize(3);
        assertThat(text.lines().toList().get(0)).startsWith("case").contains("produced");
    }
}
