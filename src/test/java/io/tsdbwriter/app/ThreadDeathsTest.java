package io.tsdbwriter.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ThreadDeathsTest {

    @Test
    void theFirstDeathRunsTheStopActionOnceAndEveryDeathIsRecorded() throws Exception {
        ThreadDeaths deaths = new ThreadDeaths();
        AtomicInteger stops = new AtomicInteger();
        deaths.onFirstDeath(stops::incrementAndGet);
        assertThat(deaths.anyDied()).isFalse();
        Thread a = Thread.ofPlatform()
                .name("segment-t-1-0")
                .uncaughtExceptionHandler(deaths)
                .unstarted(() -> {
                    throw new StackOverflowError("deep");
                });
        a.start();
        a.join();
        Thread b = Thread.ofVirtual()
                .name("vm-write-7")
                .uncaughtExceptionHandler(deaths)
                .unstarted(() -> {
                    throw new IllegalStateException("bug");
                });
        b.start();
        b.join();
        assertThat(stops.get()).isOne();
        assertThat(deaths.anyDied()).isTrue();
        assertThat(deaths.firstDeath()).isEqualTo("segment-t-1-0: java.lang.StackOverflowError: deep");
    }
}
