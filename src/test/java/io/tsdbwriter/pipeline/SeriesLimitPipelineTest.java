package io.tsdbwriter.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.amplify.SeriesCache;
import io.tsdbwriter.amplify.SeriesLimiter;
import io.tsdbwriter.decode.InputFormat;
import io.tsdbwriter.decode.influx.InfluxDecoder;
import io.tsdbwriter.encode.vmimport.ImportLineEncoder;
import io.tsdbwriter.encode.vmimport.ImportSampleEncoder;
import io.tsdbwriter.relabel.RelabelRules;
import io.tsdbwriter.tenant.TenantRouting;
import io.tsdbwriter.tenant.TenantSyntax;
import io.tsdbwriter.wire.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * {@code --max-hourly-series} / {@code --max-daily-series} on the hot path: a series is checked once per hour on its
 * first point, as the TSDB receives it (relabeled, N variants, with its tenant); the points of a dropped series encode
 * nothing and their samples (M × N) are counted.
 */
class SeriesLimitPipelineTest {

    /** 2026-12-06T00:00:00Z. */
    private static final long DAY = 1_796_515_200_000L;

    private static final long T = 1_795_300_800_000L;

    private final AtomicLong clock = new AtomicLong(DAY);

    private static byte[] record(String metric, String dimensions) {
        return ("{\"metric\":\"" + metric + "\",\"timestamp\":" + T + ",\"value\":1,\"dimensions\":{" + dimensions
                        + "}}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private PointAmplifier amplifier(int m, int n, SeriesCache cache, SeriesLimiter limiter) {
        return new PointAmplifier(
                        1 << 20, new ImportLineEncoder(AmplificationPlan.of(m, n, Duration.ofSeconds(60))), cache)
                .seriesLimits(limiter);
    }

    /** Encodes one record's point 0; the samples it became. */
    private static int encode(PointAmplifier a, String metric, String dimensions, ByteBuf out) {
        a.decode(record(metric, dimensions), 0);
        return a.encodePoint(0, out);
    }

    @Test
    void seriesPastTheHourlyLimitEncodeNothingAndTheirSamplesAreCounted() {
        PointAmplifier a = amplifier(1, 1, new SeriesCache(100), new SeriesLimiter(3, 0, clock::get));
        ByteBuf out = new ByteBuf(1024);
        int written = 0;
        for (int round = 0; round < 2; round++) {
            for (int host = 0; host < 5; host++) {
                written += encode(a, "cpu", "\"host\":\"h" + host + "\"", out);
            }
        }
        assertThat(written).as("3 series of 5, twice").isEqualTo(6);
        assertThat(a.hourlyLimitDropped())
                .as("2 series of 5, twice: their samples")
                .isEqualTo(4);
        assertThat(a.dailyLimitDropped()).isZero();
        assertThat(new String(out.array(), 0, out.length(), StandardCharsets.UTF_8))
                .contains("\"h0\"", "\"h1\"", "\"h2\"")
                .doesNotContain("\"h3\"", "\"h4\"");
    }

    @Test
    void eachInstanceVariantIsASeriesTheTimeCopiesAreNot() {
        PointAmplifier a = amplifier(4, 2, new SeriesCache(100), new SeriesLimiter(0, 5, clock::get));
        ByteBuf out = new ByteBuf(4096);
        assertThat(encode(a, "cpu", "\"instanceNo\":\"a\"", out)).as("M × N").isEqualTo(8);
        assertThat(encode(a, "cpu", "\"instanceNo\":\"b\"", out)).isEqualTo(8);
        assertThat(encode(a, "cpu", "\"instanceNo\":\"c\"", out))
                .as("4 series admitted: c's 2 do not fit 5")
                .isZero();
        assertThat(a.dailyLimitDropped()).isEqualTo(8);
    }

    @Test
    void aSeriesIsCheckedOncePerHourAndIsNewAgainInTheNextHour() {
        SeriesLimiter limiter = new SeriesLimiter(1, 0, clock::get);
        SeriesCache cache = new SeriesCache(100);
        PointAmplifier a = amplifier(1, 1, cache, limiter);
        ByteBuf out = new ByteBuf(1024);
        assertThat(encode(a, "cpu", "\"host\":\"a\"", out)).isEqualTo(1);
        assertThat(encode(a, "cpu", "\"host\":\"b\"", out)).isZero();
        assertThat(encode(a, "cpu", "\"host\":\"a\"", out)).isEqualTo(1);
        clock.addAndGet(Duration.ofHours(1).toMillis());
        assertThat(encode(a, "cpu", "\"host\":\"b\"", out))
                .as("the next hour: b first, admitted")
                .isEqualTo(1);
        assertThat(encode(a, "cpu", "\"host\":\"a\"", out))
                .as("a was of the last hour: new in this one, past the limit")
                .isZero();
        assertThat(limiter.hourlySeries()).isEqualTo(1);
        assertThat(cache.size())
                .as("the stamped entries replaced the cached ones")
                .isEqualTo(2);
    }

    @Test
    void aSeriesEvictedAndPreparedAgainIsNotCountedTwice() {
        SeriesLimiter limiter = new SeriesLimiter(2, 0, clock::get);
        PointAmplifier a = amplifier(1, 2, new SeriesCache(1), limiter); // one entry: every other series evicts it
        ByteBuf out = new ByteBuf(4096);
        for (int i = 0; i < 5; i++) {
            assertThat(encode(a, "cpu", "\"instanceNo\":\"a\"", out)).isEqualTo(2);
            assertThat(encode(a, "cpu", "\"instanceNo\":\"b\"", out)).isZero();
        }
        assertThat(limiter.hourlySeries()).isEqualTo(2);
        assertThat(a.hourlyLimitDropped()).isEqualTo(10);
    }

    @Test
    void atNEqualsOneLimitedPointsAreNotCopiedVerbatimButCheckedLikeTheOthers() {
        PointAmplifier a = amplifier(2, 1, new SeriesCache(100), new SeriesLimiter(1, 0, clock::get));
        ByteBuf out = new ByteBuf(1024);
        assertThat(encode(a, "cpu", "\"host\":\"a\"", out)).isEqualTo(2);
        assertThat(encode(a, "cpu", "\"host\":\"b\"", out)).isZero();
        assertThat(a.hourlyLimitDropped()).isEqualTo(2);
    }

    @Test
    void theSeriesCountedAreTheRelabeledOnes() {
        RelabelRules rules = RelabelRules.parse("- {regex: 'pod_uid', action: labeldrop}", "t.yml");
        SeriesLimiter limiter = new SeriesLimiter(1, 0, clock::get);
        PointAmplifier a = amplifier(1, 1, new SeriesCache(100), limiter).relabel(rules);
        ByteBuf out = new ByteBuf(1024);
        for (int uid = 0; uid < 5; uid++) {
            assertThat(encode(a, "cpu", "\"host\":\"a\",\"pod_uid\":\"u" + uid + "\"", out))
                    .as("5 source series, one series after relabeling")
                    .isEqualTo(1);
        }
        assertThat(limiter.hourlySeries()).isEqualTo(1);
    }

    @Test
    void theSameLabelsInTwoTenantsAreTwoSeries() {
        TenantRouting label = TenantRouting.parse("label:tenant", null, null, TenantSyntax.ACCOUNT_ID);
        SeriesLimiter limiter = new SeriesLimiter(1, 0, clock::get);
        PointAmplifier a = amplifier(1, 1, new SeriesCache(100), limiter).tenants(label);
        ByteBuf out = new ByteBuf(1024);
        assertThat(encode(a, "cpu", "\"host\":\"a\",\"tenant\":\"1\"", out)).isEqualTo(1);
        assertThat(encode(a, "cpu", "\"host\":\"a\",\"tenant\":\"2\"", out)).isZero();

        TenantRouting header = TenantRouting.parse("header:tenant", null, null, TenantSyntax.ACCOUNT_ID);
        SeriesLimiter byHeader = new SeriesLimiter(1, 0, clock::get);
        PointAmplifier h = amplifier(1, 1, new SeriesCache(100), byHeader).tenants(header);
        h.recordTenant(header.resolve("1"));
        assertThat(encode(h, "cpu", "\"host\":\"a\"", out)).isEqualTo(1);
        h.recordTenant(header.resolve("2"));
        assertThat(encode(h, "cpu", "\"host\":\"a\"", out))
                .as("the same cached series in another tenant")
                .isZero();
        h.recordTenant(header.resolve("1"));
        assertThat(encode(h, "cpu", "\"host\":\"a\"", out)).isEqualTo(1);
    }

    @Test
    void ofARecordsPointsThoseOfAdmittedSeriesAreWrittenTheOthersCounted() {
        PointAmplifier a = new PointAmplifier(
                        RecordDecoders.create(InputFormat.PROMETHEUS, 1 << 20, InfluxDecoder.Precision.NS),
                        new ImportSampleEncoder(
                                new ImportLineEncoder(AmplificationPlan.of(1, 1, Duration.ofSeconds(60)))),
                        new SeriesCache(100))
                .seriesLimits(new SeriesLimiter(2, 0, clock::get));
        StringBuilder page = new StringBuilder();
        for (int i = 0; i < 5; i++) {
            page.append("up{job=\"j").append(i).append("\"} 1 ").append(T).append('\n');
        }
        a.decode(page.toString().getBytes(StandardCharsets.UTF_8), T);
        assertThat(a.pointCount()).isEqualTo(5);
        ByteBuf out = new ByteBuf(1024);
        int samples = 0;
        for (int p = 0; p < a.pointCount(); p++) {
            samples += a.encodePoint(p, out);
        }
        assertThat(samples).isEqualTo(2);
        assertThat(a.hourlyLimitDropped()).isEqualTo(3);
    }
}
