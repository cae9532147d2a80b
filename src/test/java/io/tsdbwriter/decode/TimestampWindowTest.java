package io.tsdbwriter.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tsdbwriter.decode.graphite.GraphiteDecoder;
import io.tsdbwriter.decode.influx.InfluxDecoder;
import io.tsdbwriter.decode.json.JsonDecoder;
import io.tsdbwriter.decode.jsonline.ExportLineDecoder;
import io.tsdbwriter.decode.prometheus.ExpositionDecoder;
import io.tsdbwriter.decode.promremotewrite.RemoteWriteDecoder;
import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.xerial.snappy.Snappy;

/**
 * Bad numbers are bad input (issue 23): a timestamp that is not plausible epoch milliseconds — µs or ns sent as ms,
 * which VictoriaMetrics answers 204 and drops — is malformed ({@code implausible_timestamp}) in every format with
 * millisecond timestamps, after the format's own unit conversion; the good lines around it are kept.
 */
class TimestampWindowTest {

    /** A real scrape time: 2026-11-21T…Z in epoch ms. */
    private static final long MS = 1_795_300_857_000L;

    private static final long US = MS * 1000;
    private static final long NS = MS * 1_000_000;
    private static final long KAFKA_TS = System.currentTimeMillis();

    @Test
    void theDefaultWindowIsTheYear2000UntilADayAhead() {
        long now = 1_800_000_000_000L;
        TimestampWindow w = TimestampWindow.DEFAULT;
        long latest = w.latestMs(now);

        assertThat(w.contains(946_684_800_000L, latest))
                .as("2000-01-01T00:00:00Z")
                .isTrue();
        assertThat(w.contains(946_684_799_999L, latest)).isFalse();
        assertThat(w.contains(now + 86_400_000L, latest)).as("now + 1 day").isTrue();
        assertThat(w.contains(now + 86_400_001L, latest)).isFalse();
        assertThat(new TimestampWindow(0, Long.MAX_VALUE).latestMs(now))
                .as("saturates")
                .isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void theDetailNamesTheWindowAndTheLikelyUnit() {
        assertThat(TimestampWindow.DEFAULT.describe(US))
                .isEqualTo("timestamp " + US + " ms is outside 2000-01-01T00:00:00Z … now + 24h "
                        + "(--min-timestamp, --max-timestamp-ahead): microseconds sent as milliseconds?");
        assertThat(TimestampWindow.DEFAULT.describe(NS)).endsWith("nanoseconds sent as milliseconds?");
        assertThat(TimestampWindow.DEFAULT.describe(MS / 1000))
                .endsWith("seconds sent as milliseconds, or a clock far behind?");
    }

    @Test
    void negativeBoundsAreRefused() {
        assertThatThrownBy(() -> new TimestampWindow(-1, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--min-timestamp");
        assertThatThrownBy(() -> new TimestampWindow(0, -1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--max-timestamp-ahead");
    }

    @Test
    void jsonRecordsWithMicroOrNanosecondsAreRefusedWhole() {
        JsonDecoder d = new JsonDecoder(1 << 20);
        String good = "{\"metric\":\"up\",\"timestamp\":" + MS + ",\"value\":1}";

        assertThat(Decoded.of(d, good, KAFKA_TS).points).containsExactly("up{} 1.0 @" + MS);
        for (long ts : new long[] {US, NS}) {
            Decoded r =
                    Decoded.of(d, "[" + good + ",{\"metric\":\"up\",\"timestamp\":" + ts + ",\"value\":2}]", KAFKA_TS);
            assertThat(r.points)
                    .as("a record that breaks a rule is refused whole")
                    .isEmpty();
            assertThat(r.rejections.first()).isEqualTo(DecodeError.IMPLAUSIBLE_TIMESTAMP);
            assertThat(r.rejections.malformed())
                    .as("dead-lettered like any malformed record")
                    .isTrue();
        }
    }

    @Test
    void influxLinesInNanosecondsReadAsMillisecondsAreRefusedTheOthersKept() {
        InfluxDecoder ms = new InfluxDecoder(1 << 20, InfluxDecoder.Precision.MS);

        Decoded r =
                Decoded.of(ms, "cpu,host=a v=1 " + MS + "\ncpu,host=a v=2 " + NS + "\ncpu,host=a v=3 " + US, KAFKA_TS);

        assertThat(r.points).containsExactly("cpu_v{host=\"a\"} 1.0 @" + MS);
        assertThat(r.rejections.count(DecodeError.IMPLAUSIBLE_TIMESTAMP)).isEqualTo(2);
        assertThat(r.rejections.firstDetail()).startsWith("line 2: timestamp " + NS + " ms is outside");
        assertThat(Decoded.of(new InfluxDecoder(1 << 20, InfluxDecoder.Precision.NS), "cpu v=1 " + NS, KAFKA_TS).points)
                .as("the same value at its right precision")
                .containsExactly("cpu_v{} 1.0 @" + MS);
    }

    @Test
    void exportLinesExpositionAndGraphiteLinesOutsideTheWindowAreRefused() {
        Decoded jsonline = Decoded.of(
                new ExportLineDecoder(1 << 20),
                "{\"metric\":{\"__name__\":\"m\"},\"values\":[1],\"timestamps\":[" + MS + "]}\n"
                        + "{\"metric\":{\"__name__\":\"m\"},\"values\":[1,2],\"timestamps\":[" + MS + "," + US + "]}",
                KAFKA_TS);
        assertThat(jsonline.points).containsExactly("m{} 1.0 @" + MS);
        assertThat(jsonline.rejections.count(DecodeError.IMPLAUSIBLE_TIMESTAMP)).isEqualTo(1);

        Decoded exposition =
                Decoded.of(new ExpositionDecoder(1 << 20), "a 1 " + MS + "\nb 2 " + US + "\nc 3", KAFKA_TS);
        assertThat(exposition.points).containsExactly("a{} 1.0 @" + MS, "c{} 3.0 @" + KAFKA_TS);
        assertThat(exposition.rejections.count(DecodeError.IMPLAUSIBLE_TIMESTAMP))
                .isEqualTo(1);

        Decoded graphite = Decoded.of(new GraphiteDecoder(1 << 20), "a.b 1 " + MS / 1000 + "\na.c 2 " + MS, KAFKA_TS);
        assertThat(graphite.points)
                .as("graphite timestamps are seconds: milliseconds there are the year 58 000")
                .containsExactly("a.b{} 1.0 @" + MS);
        assertThat(graphite.rejections.count(DecodeError.IMPLAUSIBLE_TIMESTAMP)).isEqualTo(1);
    }

    @Test
    void remoteWriteSamplesOutsideTheWindowAreRefusedTheRestOfTheSeriesKept() throws IOException {
        byte[] req =
                RemoteWriteDecoderTest.writeRequest(new Object[][] {{"__name__", "up"}, {1.0, MS, 2.0, US, 3.0, 5L}});

        Decoded r = Decoded.of(new RemoteWriteDecoder(1 << 20), Snappy.compress(req), KAFKA_TS);

        assertThat(r.points).containsExactly("up{} 1.0 @" + MS);
        assertThat(r.rejections.count(DecodeError.IMPLAUSIBLE_TIMESTAMP)).isEqualTo(2);
        assertThat(r.rejections.malformed()).isTrue();
    }

    @Test
    void aConfiguredWindowMovesTheBounds() {
        TimestampWindow since2026 = new TimestampWindow(1_767_225_600_000L, 0); // 2026-01-01, nothing ahead of now
        Decoded r = Decoded.of(
                new ExpositionDecoder(1 << 20, since2026), "old 1 1735689600000\nnew 2 " + (KAFKA_TS - 1000), KAFKA_TS);

        assertThat(r.points).containsExactly("new{} 2.0 @" + (KAFKA_TS - 1000));
        assertThat(r.rejections.count(DecodeError.IMPLAUSIBLE_TIMESTAMP)).isEqualTo(1);
    }

    @Test
    void aReplaysShiftIsAppliedBeforeTheCheck() {
        long now = 1_795_300_800_000L;
        TimestampWindow w = TimestampWindow.DEFAULT.shifted(365L * 86_400_000L); // data from a year ago, rebased to now
        long yearAgo = now - 365L * 86_400_000L;

        assertThat(w.contains(yearAgo, w.latestMs(now))).isTrue();
        assertThat(w.contains(now, w.latestMs(now)))
                .as("shifted a year past now")
                .isFalse();
        assertThat(w.contains(Long.MAX_VALUE - 5, w.latestMs(now)))
                .as("saturates, never wraps into range")
                .isFalse();
    }

    @Test
    void theTargetsRetentionRaisesTheEarliestBoundAndSaysSo() {
        long now = 1_795_300_800_000L;
        TimestampWindow w =
                TimestampWindow.DEFAULT.atLeast(now - 31L * 86_400_000L, "older than the target's retention");

        assertThat(w.contains(now - 32L * 86_400_000L, w.latestMs(now))).isFalse();
        assertThat(w.contains(now - 30L * 86_400_000L, w.latestMs(now))).isTrue();
        assertThat(w.describe(now - 32L * 86_400_000L)).contains("older than the target's retention");
        assertThat(TimestampWindow.DEFAULT.atLeast(0, "x"))
                .as("a lower bound changes nothing")
                .isEqualTo(TimestampWindow.DEFAULT);
    }
}
