package io.tsdbwriter.write;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/**
 * A half-open breaker lets one request through; a permission given back for an attempt not made frees that slot; a
 * refusal under {@code --on-configuration-fault refuse} is the endpoint's success.
 */
class EndpointBreakersTest {

    private static final WriteOutcome NO_ANSWER =
            new WriteOutcome(WriteOutcome.Kind.RETRYABLE, 0, -1, "connection reset");

    @Test
    void aPermissionGivenBackForAStaleWriteLetsTheNextWriteProbeTheHalfOpenBreaker() throws Exception {
        WriteTarget endpoint = new WriteTarget("http://127.0.0.1:1");
        EndpointBreakers breakers = new EndpointBreakers(List.of(endpoint), Duration.ofMillis(1));
        Backoff backoff = new Backoff(ms -> {}, 200); // polls without sleeping
        for (int i = 0; i < 5; i++) {
            breakers.record(endpoint, 1_000_000, NO_ANSWER);
        }
        assertThat(breakers.notOpen(endpoint)).as("five failures open it").isFalse();
        AtomicInteger polls = new AtomicInteger();
        // gives up (InterruptedException) after many polls instead of hanging when the slot stays taken
        BooleanSupplier giveUp = () -> polls.incrementAndGet() > 1_000_000;

        assertThat(breakers.await(endpoint, giveUp, backoff))
                .as("the half-open probe")
                .isTrue();
        breakers.release(endpoint, true); // its write went stale: no request, no outcome to record

        polls.set(0);
        assertThat(breakers.await(endpoint, giveUp, backoff))
                .as("the next write takes the probe slot")
                .isTrue();
        breakers.record(endpoint, 1_000_000, new WriteOutcome(WriteOutcome.Kind.SUCCESS, 204, -1, ""));
        assertThat(breakers.notOpen(endpoint)).isTrue();
    }

    @Test
    void refusalsUnderRefuseNeverOpenTheBreaker() {
        WriteTarget endpoint = new WriteTarget("http://127.0.0.1:1");
        EndpointBreakers breakers = new EndpointBreakers(List.of(endpoint), Duration.ofSeconds(30));
        for (int i = 0; i < 20; i++) {
            breakers.recordRefusal(endpoint, 1_000_000);
        }
        assertThat(breakers.notOpen(endpoint)).isTrue();
        for (int i = 0; i < 5; i++) {
            breakers.record(endpoint, 1_000_000, NO_ANSWER);
        }
        assertThat(breakers.notOpen(endpoint))
                .as("the window is 10 calls: five failures among them still open it")
                .isFalse();
    }
}
