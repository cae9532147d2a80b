package io.tsdbwriter.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tsdbwriter.produce.LatencyHistograms;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HistogramShareTest {

    /** A week before now, on the minute: inside the decoders' timestamp window. */
    private static final long T0 = (System.currentTimeMillis() - 7L * 24 * 3_600_000) / 60_000 * 60_000;

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "'' | false",
                "--output,remote-write | true",
                "--output=remote-write | true",
                "--output,remote-write,--output,import | false",
                "--output=import,--output,remote-write | true",
                "--tenant-from,x,--output | false",
                "--remote-write-url,remote-write | false"
            })
    void theOutputIsTheLastOutputFlag(String args, boolean remoteWrite) {
        List<String> list = args.isEmpty() ? List.of() : List.of(args.split(","));
        assertThat(HistogramShare.remoteWrite(list)).isEqualTo(remoteWrite);
    }

    @Test
    void theWriterReadsTheHistogramTopicAsOtlp() {
        assertThat(HistogramShare.topic("cap-step-03")).isEqualTo("cap-step-03-histograms");
        assertThat(HistogramShare.writerArgs("cap-step-03"))
                .containsExactly("--topic", "cap-step-03-histograms", "--topic-format", "cap-step-03-histograms=otlp");
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "http.server.request.duration, true",
        "http.server.request.duration_count, true",
        "http.server.request.duration_sum, true",
        "http.server.request.duration_bucket, true",
        "http.server.request.duration_total, false",
        "node_cpu_seconds_total, false",
        "http_server_request_duration, false"
    })
    void theHistogramsNamesAreTheMetricAndItsSeries(String name, boolean histogram) {
        assertThat(HistogramShare.isHistogramName(name)).isEqualTo(histogram);
    }

    @Test
    void theHistogramsCoverThePointsSpanAMinuteApartEndingAtTheNewestMinute() {
        LatencyHistograms h = HistogramShare.covering(3, T0 + 59_999, 30 * 60_000 + 1);
        assertThat(h.size()).isEqualTo(3 * 30);
        assertThat(h.timestampMs(29)).isEqualTo(T0);
        assertThat(h.timestampMs(0)).isEqualTo(T0 - 29 * 60_000);
    }

    @Test
    void aSpanShorterThanAMinuteStillHasOneDataPointPerSeries() {
        assertThat(HistogramShare.covering(5, T0, 1_000).size()).isEqualTo(5);
        assertThatThrownBy(() -> HistogramShare.covering(0, T0, 60_000)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aNativeHistogramIsOneSampleAVmrangeHistogramItsCountSumAndBuckets() {
        Iterator<LatencyHistograms.Record> records =
                HistogramShare.covering(4, T0, 10 * 60_000).records(HistogramShare.POINTS_PER_RECORD);
        HistogramShare.Samples nativeSamples = new HistogramShare.Samples(true);
        HistogramShare.Samples importSamples = new HistogramShare.Samples(false);
        long points = 0;
        long imported = 0;
        while (records.hasNext()) {
            LatencyHistograms.Record r = records.next();
            assertThat(r.points()).isLessThanOrEqualTo(HistogramShare.POINTS_PER_RECORD);
            assertThat(nativeSamples.of(r.value())).isEqualTo(r.points());
            long samples = importSamples.of(r.value());
            assertThat(samples).isGreaterThanOrEqualTo(3L * r.points()); // _count, _sum, one bucket at least
            points += r.points();
            imported += samples;
        }
        assertThat(points).isEqualTo(40);
        HistogramShare.Fed fed = new HistogramShare.Fed(4, points, imported);
        assertThat(fed.samples(true)).isEqualTo(40);
        assertThat(fed.samples(false)).isEqualTo(imported);
        assertThat(HistogramShare.Fed.NONE.samples(false)).isZero();
    }
}
