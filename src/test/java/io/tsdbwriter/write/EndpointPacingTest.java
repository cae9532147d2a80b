package io.tsdbwriter.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * One backoff per endpoint: while it fails, an attempt following another write's waits the endpoint's step; a write's
 * own retry, and any attempt to a healthy endpoint, do not. The waits are recorded, not slept.
 */
class EndpointPacingTest {

    private static final WriteTarget ENDPOINT = WriteTarget.remoteWrite("http://127.0.0.1:1/api/v1/write");
    private static final WriteOutcome UNAVAILABLE = new WriteOutcome(WriteOutcome.Kind.RETRYABLE, 503, -1, "");
    private static final WriteOutcome WRITTEN = new WriteOutcome(WriteOutcome.Kind.SUCCESS, 204, -1, "");

    private final List<Long> waits = new CopyOnWriteArrayList<>();
    private final RetryPolicy retry = new RetryPolicy(5, Duration.ofMillis(200), Duration.ofSeconds(30), waits::add);
    /** The clock: advanced by hand, so no real time passes between attempts. */
    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    private final EndpointPacing pacing = new EndpointPacing(List.of(ENDPOINT), retry, now::get);
    private final Backoff backoff = new Backoff(retry.sleeper(), 200);

    /** The attempt of another write thread (a virtual thread, as the writer's): its turn, then the answer. */
    private long otherWrite(WriteOutcome answer) throws Exception {
        long[] sent = new long[1];
        Thread t = Thread.ofVirtual().start(() -> {
            try {
                sent[0] = pacing.awaitTurn(ENDPOINT, backoff, false);
                pacing.answered(ENDPOINT, sent[0], answer, answer.kind() == WriteOutcome.Kind.RETRYABLE);
            } catch (InterruptedException | Backoff.Held e) {
                throw new IllegalStateException(e);
            }
        });
        t.join();
        return sent[0];
    }

    @Test
    void aHealthyEndpointIsNotPaced() throws Exception {
        otherWrite(WRITTEN);
        otherWrite(WRITTEN);
        pacing.awaitTurn(ENDPOINT, backoff, false);

        assertThat(waits).isEmpty();
    }

    @Test
    void whileItFailsAnotherWritesAttemptWaitsTheStepAndTheStepGrowsPerRound() throws Exception {
        otherWrite(UNAVAILABLE);
        otherWrite(UNAVAILABLE); // waited the first step, then failed: the second round
        otherWrite(UNAVAILABLE);

        assertThat(waits).hasSize(2);
        assertThat(waits.get(0)).isBetween(100L, 300L); // 200 ms ± 50 %
        assertThat(waits.get(1)).isBetween(200L, 600L); // 400 ms ± 50 %
    }

    @Test
    void aWritesOwnRetryIsSpacedByItsOwnBackoffNotAgainHere() throws Exception {
        long sent = pacing.awaitTurn(ENDPOINT, backoff, false);
        pacing.answered(ENDPOINT, sent, UNAVAILABLE, true);
        pacing.awaitTurn(ENDPOINT, backoff, false);

        assertThat(waits).isEmpty();
    }

    @Test
    void failuresOfAttemptsSentBeforeTheFirstFailureWasNotedCountOnce() throws Exception {
        long first = pacing.awaitTurn(ENDPOINT, backoff, false);
        long second = pacing.awaitTurn(ENDPOINT, backoff, false); // both in flight when the endpoint began to fail
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(5));
        pacing.answered(ENDPOINT, first, UNAVAILABLE, true);
        pacing.answered(ENDPOINT, second, UNAVAILABLE, true);
        otherWrite(UNAVAILABLE);

        // one step of 200 ms ± 50 %, less the 5 ms that passed since the two attempts were sent
        assertThat(waits).singleElement().satisfies(w -> assertThat(w).isBetween(95L, 295L));
    }

    @Test
    void retryAfterSetsTheStepCappedAtTheMaxBackoff() throws Exception {
        otherWrite(new WriteOutcome(WriteOutcome.Kind.RETRYABLE, 429, 120_000, ""));
        otherWrite(WRITTEN);

        assertThat(waits).singleElement().satisfies(w -> assertThat(w).isBetween(29_000L, 30_000L));
    }

    @Test
    void theTimeSinceTheLastAttemptCountsTowardTheStep() throws Exception {
        otherWrite(new WriteOutcome(WriteOutcome.Kind.RETRYABLE, 503, 1_000, ""));
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(400)); // e.g. waiting on the open breaker
        otherWrite(UNAVAILABLE);
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(30_000));
        otherWrite(UNAVAILABLE);

        assertThat(waits).containsExactly(600L);
    }

    @Test
    void aWrittenAnswerEndsThePacing() throws Exception {
        otherWrite(UNAVAILABLE);
        otherWrite(WRITTEN);
        otherWrite(WRITTEN);

        assertThat(waits).as("only the attempt after the failure").hasSize(1);
    }

    @Test
    void afterTheStopAnAttemptWhoseStepHasNotPassedIsHeldNotSent() throws Exception {
        long sent = pacing.awaitTurn(ENDPOINT, backoff, false);
        pacing.answered(ENDPOINT, sent, new WriteOutcome(WriteOutcome.Kind.RETRYABLE, 503, 20_000, ""), true);
        backoff.stop();
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(300));

        assertThatThrownBy(() -> pacing.awaitTurn(ENDPOINT, backoff, false))
                .as("its own retry, 300 ms into a 20 s step")
                .isInstanceOf(Backoff.Held.class);
        assertThat(waits).as("nothing waited: the stop waits out no step").isEmpty();
    }

    @Test
    void afterTheStopAnAttemptWhoseStepHasPassedGoesOut() throws Exception {
        long sent = pacing.awaitTurn(ENDPOINT, backoff, false);
        pacing.answered(ENDPOINT, sent, new WriteOutcome(WriteOutcome.Kind.RETRYABLE, 503, 1_000, ""), true);
        backoff.stop();
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(1_000));

        assertThat(pacing.awaitTurn(ENDPOINT, backoff, false)).isEqualTo(now.get());
    }

    @Test
    void after429TheStopStillWaitsAsTold() throws Exception {
        otherWrite(new WriteOutcome(WriteOutcome.Kind.RETRYABLE, 429, 2_000, ""));
        backoff.stop();

        pacing.awaitTurn(ENDPOINT, backoff, true);

        assertThat(waits).containsExactly(2_000L);
    }
}
