package io.tsdbwriter.tsdbmetrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.tsdbmetrics.Bottleneck.Resource;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Test;

/** The live attribution of {@code run}: intervals, lag growth, the gauge's resource, the report line. */
class LiveAttributionTest {

    private final AtomicInteger inUse = new AtomicInteger();
    private final AtomicLong lag = new AtomicLong();
    private final AtomicLong consumed = new AtomicLong();

    /** No target page at all (an unreachable port): every target figure unknown. */
    private LiveAttribution attribution() {
        MetricsScraper scraper = new MetricsScraper(new OkHttpClient(), Duration.ofMillis(500));
        return new LiveAttribution(
                scraper,
                List.of("http://127.0.0.1:1/metrics"),
                inUse::get,
                () -> 8,
                lag::get,
                consumed::get,
                () -> 1.0,
                () -> Double.NaN);
    }

    @Test
    void unknownBeforeTheFirstReportThenTheInputWhileKeepingUp() {
        LiveAttribution a = attribution();
        assertThat(a.current()).isEqualTo(Resource.UNKNOWN);
        inUse.set(1);
        a.sample();
        consumed.set(10_000);
        assertThat(a.evaluate(1.0).resource()).isEqualTo(Resource.INPUT);
        assertThat(a.current()).isEqualTo(Resource.INPUT);
    }

    @Test
    void permitsFullWithTheTargetUnreadableIsUnknownNotAGuess() {
        LiveAttribution a = attribution();
        inUse.set(8);
        a.sample();
        a.sample();
        consumed.set(1_000);
        lag.set(100_000_000); // far more than 5 s of the records consumed in this short interval
        Bottleneck.Verdict v = a.evaluate(0.5);
        assertThat(v.resource()).isEqualTo(Resource.UNKNOWN);
        assertThat(v.evidence()).contains("lag growing", "permits 8 of 8 (100.0%)", "target inserts n/a");
        String line = LiveAttribution.annotate("[report] x", v);
        assertThat(line).startsWith("[report] x | limited_by=unknown (");
    }

    @Test
    void aSteadyLagDoesNotCountAsGrowing() {
        LiveAttribution a = attribution();
        lag.set(5_000);
        a.evaluate(1.0);
        consumed.set(1_000_000);
        lag.set(5_100); // +100 records while a million were consumed: noise of the commit interval
        assertThat(a.evaluate(0.95).evidence()).contains("lag steady");
    }

    @Test
    void shareModeHasNoLagAndNamesTheAcquisitionWhileTheWriteSideHasRoom() {
        MetricsScraper scraper = new MetricsScraper(new OkHttpClient(), Duration.ofMillis(500));
        LiveAttribution a = new LiveAttribution(
                scraper,
                List.of("http://127.0.0.1:1/metrics"),
                inUse::get,
                () -> 8,
                lag::get,
                consumed::get,
                () -> 1.0,
                () -> Double.NaN,
                true);
        inUse.set(1);
        a.sample();
        consumed.set(10_000);
        lag.set(100_000_000); // a lag gauge of another mode's readers: not a share group's
        Bottleneck.Verdict v = a.evaluate(1.0);
        assertThat(v.resource()).isEqualTo(Resource.ACQUISITION);
        assertThat(v.evidence()).contains("lag n/a");
        inUse.set(8);
        a.sample();
        a.evaluate(1.0); // every permit in use, the target unreadable: unknown, which mostOften passes over
        assertThat(a.mostOften()).isEqualTo(Resource.ACQUISITION);
    }
}
