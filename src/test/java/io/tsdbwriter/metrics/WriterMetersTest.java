package io.tsdbwriter.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.tsdbwriter.write.WritePermits;
import io.tsdbwriter.write.WriteTarget;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

class WriterMetersTest {

    @Test
    void shareAcknowledgementsAreRegisteredAtZeroPerTypeAndRefuseAnUnknownType() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        WriterMeters meters = new WriterMeters(registry);
        assertThat(registry.find("tsdbwriter.share.acknowledgements").counters())
                .hasSize(WriterMeters.SHARE_ACKNOWLEDGEMENT_TYPES.size());
        meters.shareAcknowledgements("renew", 3);
        meters.shareAcknowledgements("renew", 0);
        assertThat(meters.shareAcknowledgements("renew")).isEqualTo(3);
        assertThat(meters.shareAcknowledgements("accept")).isZero();
        Assertions.assertThatThrownBy(() -> meters.shareAcknowledgements("nack", 1))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nack");
    }

    @Test
    void permitLimitReachedCountsAcquisitionsThatWaited() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        WriterMeters meters = new WriterMeters(registry);
        WritePermits permits = new WritePermits(1, 1 << 20);
        meters.permitLimitReached(permits, WritePermits::limitReached);
        WriteTarget vm = new WriteTarget("http://127.0.0.1:8428");
        FunctionCounter counter =
                registry.get("tsdbwriter.write.permits.limit.reached").functionCounter();

        WritePermits.Permit first = permits.acquire(vm, 100);
        assertThat(counter.count()).isZero();

        CountDownLatch acquired = new CountDownLatch(1);
        Thread waiter = Thread.ofVirtual().start(() -> {
            try {
                permits.release(permits.acquire(vm, 100));
                acquired.countDown();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (permits.limitReached() == 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait(); // until the waiter finds the one permit taken
        }
        assertThat(counter.count()).isEqualTo(1.0);
        permits.release(first);
        assertThat(acquired.await(10, TimeUnit.SECONDS)).isTrue();
        waiter.join();
        assertThat(counter.count()).isEqualTo(1.0);
    }

    @Test
    void theCapacityTestMetersHaveTheNamesTheDashboardQueries() {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        WriterMeters meters = new WriterMeters(registry);
        meters.rateSet.set(400_000);
        meters.replayPass.set(3);
        meters.seriesCreated.increment(50);

        String page = registry.scrape();

        Assertions.assertThat(page)
                .contains(
                        "tsdbwriter_rate_set_samples_per_second 400000.0",
                        "tsdbwriter_replay_pass 3.0",
                        "tsdbwriter_new_series_total 50.0");
    }

    @Test
    void samplesAreExpectedOnceTheSupersededLeftOutNeverBelowZero() {
        WriterMeters meters = new WriterMeters(new SimpleMeterRegistry());
        meters.samplesExpected.increment(1000);
        meters.samplesSuperseded.increment(250);
        assertThat(meters.expectedOnce()).isEqualTo(750);
        assertThat(meters.samplesExpected.count())
                .as("the counter itself is untouched")
                .isEqualTo(1000);
        assertThat(WriterMeters.expectedOnce(10, 12))
                .as("superseded read after expected")
                .isZero();
    }
}
