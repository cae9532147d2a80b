package io.tsdbwriter.write;

import io.tsdbwriter.metrics.IngestDelay;
import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.tenant.Tenant;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write path of DESIGN §6. {@link #submit} runs on a poll thread: it takes a write permit of the least-loaded
 * endpoint (blocking — the backpressure) and hands the batch to a virtual thread, which posts it there, retries
 * retryable outcomes per {@link RetryPolicy}, applies the {@link OnWriteFailure} policy once retries run out,
 * releases the permit and tells the {@link WriteListener}. Nothing is dropped: a batch is written, rejected with a
 * counted reason, dead-lettered, or abandoned at shutdown (and then never acked).
 *
 * <p>A stop ({@link #stopping()}) does not wait on a failing TSDB: a failing write is then held, not retried.
 *
 * <p>Thread-safe. Shutdown: {@link #stopping()}, {@link #drain(Duration)}, then {@link #close()}.
 */
public final class BatchWriter implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(BatchWriter.class);
    /** How often a listener's line about the samples an endpoint refused may repeat per endpoint: a minute. */
    public static final Duration REFUSAL_LOG_EVERY = Duration.ofMinutes(1);

    private final WriteFaults faults;
    /** Set when a configuration fault outlasted --write-fault-timeout: held batches are abandoned, not retried. */
    private volatile boolean faultGaveUp;

    private final List<WriteTarget> endpoints;
    private final WriteClient client;
    private final WritePermits permits;
    private final RetryPolicy retry;
    private final OnWriteFailure onFailure;
    private final ConfigurationFaultPolicy onConfigurationFault;
    private final WriterMeters meters;
    private final ExecutorService executor = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("vm-write-", 0).factory());
    private final AtomicInteger inFlight = new AtomicInteger();
    private final Object drainLock = new Object();
    private final EndpointBreakers breakers;
    /** The endpoints' one backoff: a failing endpoint's attempts go one at a time, each after its step. */
    private final EndpointPacing pacing;
    /** The lines of retries, said while they go on. */
    private final RetryWarnings retryWarnings = new RetryWarnings();
    /** The pace of the listeners' refusal lines, per endpoint. */
    private final PacedLines<WriteTarget> refusalLines = new PacedLines<>(REFUSAL_LOG_EVERY);

    private volatile boolean closed;
    private final boolean synchronous;
    /** The retry, pause and breaker waits, which {@link #stopping()} cuts short, and the writes held at the stop. */
    private final Backoff backoff;

    /**
     * @param endpoints   targets; each request goes to the one with the fewest requests in flight
     * @param permits     the write permits shared by all poll threads
     * @param synchronous write on the calling (poll) thread instead of a virtual thread: the proof of concept's
     *                    "before", kept for the benchmark's comparison ({@code --write-mode sync})
     */
    public BatchWriter(
            List<WriteTarget> endpoints,
            WriteClient client,
            WritePermits permits,
            RetryPolicy retry,
            OnWriteFailure onFailure,
            WriterMeters meters,
            boolean synchronous) {
        this(endpoints, client, permits, retry, onFailure, meters, synchronous, ConfigurationFaultPolicy.HOLD);
    }

    /**
     * @param onConfigurationFault {@code --on-configuration-fault}: hold a configuration fault's 4xx (the default), or
     *                             refuse its batch as the remote write specification says (never retried)
     */
    public BatchWriter(
            List<WriteTarget> endpoints,
            WriteClient client,
            WritePermits permits,
            RetryPolicy retry,
            OnWriteFailure onFailure,
            WriterMeters meters,
            boolean synchronous,
            ConfigurationFaultPolicy onConfigurationFault) {
        this.synchronous = synchronous;
        this.onConfigurationFault = onConfigurationFault;
        if (endpoints.isEmpty()) {
            throw new IllegalArgumentException("at least one VictoriaMetrics endpoint is required");
        }
        this.endpoints = List.copyOf(endpoints);
        this.client = client;
        this.permits = permits;
        this.retry = retry;
        this.onFailure = onFailure;
        this.meters = meters;
        this.faults = new WriteFaults(meters);
        this.backoff = new Backoff(retry.sleeper(), retry.initialBackoff().toMillis());
        this.breakers = new EndpointBreakers(this.endpoints, retry.maxBackoff());
        this.pacing = new EndpointPacing(this.endpoints, retry);
    }

    /**
     * The pace of the line a {@link WriteListener} says about the samples an endpoint refused ({@link
     * WriteListener#rejected}, keyed by {@link WriteListener.Rejection#endpoint()}): one for every listener of this
     * writer, at most one line per endpoint per {@link #REFUSAL_LOG_EVERY}. Thread-safe.
     */
    public PacedLines<WriteTarget> refusalLines() {
        return refusalLines;
    }

    /**
     * Takes a permit (waiting while none is free) and starts the write of {@code batch} on a virtual thread.
     *
     * @throws InterruptedException when interrupted while waiting for a permit (the batch was not started)
     * @throws IllegalStateException after {@link #close()}
     */
    public <S, O> void submit(WriteBatch<S, O> batch, WriteListener<S, O> listener) throws InterruptedException {
        if (closed) {
            throw new IllegalStateException("writer is closed");
        }
        int bytes = batch.body().length();
        long t0 = System.nanoTime();
        WritePermits.Permit budget = permits.acquire(endpoints, bytes, breakers::notOpen);
        meters.permitWait.record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
        inFlight.incrementAndGet();
        meters.inflightBytes.addAndGet(bytes);
        if (synchronous) {
            run(batch, listener, budget, bytes);
            return;
        }
        try {
            executor.execute(() -> run(batch, listener, budget, bytes));
        } catch (RuntimeException e) { // rejected: closed meanwhile
            finish(budget, bytes);
            listener.abandoned(batch);
        }
    }

    private <S, O> void run(
            WriteBatch<S, O> batch, WriteListener<S, O> listener, WritePermits.Permit budget, int bytes) {
        WriteOutcome outcome = null;
        List<WriteListener.Rejection<S>> rejections = null;
        try {
            BooleanSupplier stale = () -> listener.stale(batch); // asked before every attempt
            outcome = batch.body().length() == 0
                    ? WriteOutcome.NOTHING_SENT
                    : writeUntilDecided(batch, budget.endpoint(), stale);
            if (outcome.kind() == WriteOutcome.Kind.REJECTED && !refusedOutright(outcome)) {
                rejections = new ArrayList<>();
                isolate(batch, outcome, rejections, budget.endpoint(), stale);
            } else if (refusedOutright(outcome)) { // refused whole (--on-configuration-fault refuse): no split
                rejections = new ArrayList<>(batch.points());
                WriteListener.Rejection.each(batch, outcome, budget.endpoint(), rejections);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            outcome = null;
        } catch (Backoff.Held e) { // held at the stop, or stale: abandoned, written again by whoever reads it next
            if (!(e instanceof Backoff.Stale)) {
                backoff.held(batch.samples());
            }
            outcome = null;
        } catch (RuntimeException | Error e) {
            // a dying write thread is a dying process: the uncaught-exception handler stops the writer
            log.error("write task failed unexpectedly; batch stays unacked");
            throw e; // finish() below still releases the permit
        } finally {
            finish(budget, bytes);
        }
        if (outcome == null) {
            listener.abandoned(batch);
            return; // not decided: its body is left to the garbage collector, not reused
        }
        batch.recycle(); // decided: nothing sends, retries or splits it again (BodyPool)
        if (outcome.isSuccess()) {
            meters.written(batch.tenant(), batch.samples());
            meters.histogramsWritten(batch.histograms(), batch.histogramBuckets());
            meters.lastWriteNanos.set(System.nanoTime());
            meters.ingestDelay.record(IngestDelay.Stage.ACKNOWLEDGED, batch.recordTimeMs());
            listener.written(batch);
        } else if (rejections != null) {
            listener.rejected(batch, rejections);
        } else {
            listener.gaveUp(batch, outcome);
        }
    }

    /**
     * Writes with bounded retries until the outcome is decided. Under {@link OnWriteFailure#PAUSE} it keeps probing
     * after the retries run out (holding the permit, so the poll threads stop when every permit is held) until the
     * answer is success or a data refusal. A configuration fault ({@link WriteOutcome.Kind#FAULT}) is held whatever
     * the policy: never split, never dead-lettered, tried again with backoff up to {@code --max-backoff} until the
     * endpoint accepts it or the writer gives up on it ({@link #abortFaulted()}); its attempts go through the
     * endpoint's breaker, so a fault opens it and the writes to that endpoint wait. A refusal is confirmed to depend on
     * the data before it is returned ({@link #confirmRefusal}), except under {@link ConfigurationFaultPolicy#REFUSE},
     * where a 4xx but 429 is returned as it came ({@link #refusedOutright}: no empty probe). After the stop a write whose
     * attempt begun after it fails is held ({@link Backoff}).
     */
    private WriteOutcome writeUntilDecided(WriteBatch<?, ?> batch, WriteTarget endpoint, BooleanSupplier stale)
            throws InterruptedException, Backoff.Held {
        WriteClient.Payload payload = client.prepare(batch.body(), batch.samples(), batch.tenant());
        Backoff.Attempts attempts = backoff.attempts(stale);
        try {
            WriteOutcome outcome = writeWithRetries(payload, endpoint, attempts);
            int faultAttempt = 0;
            while (true) {
                if (refusedOutright(outcome)) {
                    return outcome; // the specification: a 4xx but 429 is not retried, whatever an empty request gets
                }
                if (outcome.kind() == WriteOutcome.Kind.REJECTED) {
                    outcome = confirmRefusal(endpoint, payload.tenant(), outcome, attempts);
                    if (outcome.kind() == WriteOutcome.Kind.REJECTED) {
                        return outcome;
                    }
                    if (backoff.failedAtStop(outcome, attempts.refusalAfterStop)) {
                        meters.writeRequest("held", outcome.statusTag());
                        throw new Backoff.Held();
                    }
                }
                if (refusedOutright(outcome)) { // the probe's own 4xx (a partial 2.0 write's probe), under refuse
                    meters.writeRequest("failed", outcome.statusTag());
                    return outcome;
                }
                if (outcome.kind() == WriteOutcome.Kind.FAULT) {
                    faults.fault(endpoint, outcome, retry.maxBackoff());
                    backoff.sleep(retry.delayMs(++faultAttempt, -1));
                    if (faultGaveUp || closed) {
                        throw new InterruptedException("configuration fault: write given up");
                    }
                    meters.retries.increment();
                } else if (outcome.kind() == WriteOutcome.Kind.RETRYABLE && onFailure == OnWriteFailure.PAUSE) {
                    log.warn(
                            "write of {} samples still failing after {} retries ({} {}); pausing and probing every {} ms",
                            batch.samples(),
                            retry.maxRetries(),
                            outcome.statusTag(),
                            outcome.detail(),
                            retry.maxBackoff().toMillis());
                    backoff.sleep(retry.maxBackoff().toMillis());
                } else {
                    return outcome;
                }
                outcome = writeWithRetries(payload, endpoint, attempts);
            }
        } finally {
            client.release(payload);
            batch.sentUnanswered(attempts.unanswered);
        }
    }

    /**
     * Whether a refusal depends on the data (DESIGN §6): the endpoint is sent an empty request. Accepted: the refusal
     * was the data's, and {@code refusal} is returned. Refused too: the fault is the endpoint (a wrong path prefix,
     * which VictoriaMetrics answers 400; an unknown token, which vmauth answers 400), and a
     * {@link WriteOutcome.Kind#FAULT} is returned. No answer, or a retryable one: that outcome, to be retried. The
     * verdict is the refused attempt's outcome for the endpoint's breaker.
     */
    private WriteOutcome confirmRefusal(
            WriteTarget endpoint, Tenant tenant, WriteOutcome refusal, Backoff.Attempts attempts) {
        WriteOutcome empty = client.probeEmpty(endpoint, tenant); // the tenant's own path or header
        meters.writeRequest("probe", empty.statusTag());
        WriteOutcome verdict =
                switch (empty.kind()) {
                    case SUCCESS -> refusal;
                    case REJECTED ->
                        new WriteOutcome(
                                WriteOutcome.Kind.FAULT,
                                refusal.status(),
                                -1,
                                "wrong path prefix? unknown token? (it refuses an empty request too, so the refusal does not depend on the data: "
                                        + refusal.detail() + ")");
                    case FAULT, RETRYABLE -> empty;
                };
        if (attempts.refusalPermitted) {
            breakers.record(endpoint, attempts.refusalTookNanos, verdict);
        }
        pacing.answered(endpoint, attempts.refusalSentNanos, verdict, fails(verdict));
        return verdict;
    }

    /**
     * Splits a refused batch in halves and writes each, recursively, until every refused point stands alone
     * (DESIGN §6: 400/413/415 split the batch, dead-letter what still fails). Counts what gets written.
     */
    private <S> void isolate(
            WriteBatch<S, ?> batch,
            WriteOutcome refusal,
            List<WriteListener.Rejection<S>> out,
            WriteTarget endpoint,
            BooleanSupplier stale)
            throws InterruptedException, Backoff.Held {
        if (batch.points() <= 1) {
            WriteListener.Rejection.each(batch, refusal, endpoint, out);
            return;
        }
        int mid = batch.points() / 2;
        for (WriteBatch<S, ?> half : List.of(batch.slice(0, mid), batch.slice(mid, batch.points()))) {
            WriteOutcome o = writeUntilDecided(half, endpoint, stale);
            if (o.isSuccess()) {
                meters.written(half.tenant(), half.samples());
                meters.histogramsWritten(half.histograms(), half.histogramBuckets());
                meters.lastWriteNanos.set(System.nanoTime());
                meters.ingestDelay.record(IngestDelay.Stage.ACKNOWLEDGED, half.recordTimeMs());
            } else if (o.kind() == WriteOutcome.Kind.REJECTED && !refusedOutright(o)) {
                isolate(half, o, out, endpoint, stale);
            } else {
                WriteListener.Rejection.each(
                        half, o, endpoint,
                        out); // retries ran out under dead-letter policy while splitting: refused too
            }
        }
    }

    private void finish(WritePermits.Permit budget, int bytes) {
        permits.release(budget);
        meters.inflightBytes.addAndGet(-bytes);
        if (inFlight.decrementAndGet() == 0) {
            synchronized (drainLock) {
                drainLock.notifyAll();
            }
        }
    }

    /**
     * One bounded round: the first attempt plus up to maxRetries retries. Each attempt goes through its endpoint's
     * resilience4j circuit breaker ({@link EndpointBreakers}): while every endpoint's breaker is open (VictoriaMetrics
     * keeps failing), attempts wait instead of hammering it, and one probe per open interval decides when writing
     * resumes. Every attempt then takes its turn at the endpoint ({@link EndpointPacing}): while the endpoint fails,
     * the writes waiting on it go one at a time, each after the endpoint's backoff step. A refusal's breaker record
     * waits for its probe ({@link #confirmRefusal}); a refusal under {@link ConfigurationFaultPolicy#REFUSE} is the
     * endpoint's success, never its failure. After the stop an attempt to a failing endpoint whose step has not passed is
     * not sent, and a failure of an attempt begun after the stop holds the write ({@link Backoff.Held}).
     */
    private WriteOutcome writeWithRetries(WriteClient.Payload payload, WriteTarget endpoint, Backoff.Attempts attempts)
            throws InterruptedException, Backoff.Held {
        boolean busy = false; // the last answer was a 429: its wait is not cut short by the stop
        for (int attempt = 0; ; attempt++) {
            boolean permitted = breakers.await(endpoint, () -> closed || faultGaveUp, backoff);
            long sentNanos;
            try {
                sentNanos = pacing.awaitTurn(endpoint, backoff, busy);
            } catch (InterruptedException | Backoff.Held e) {
                breakers.release(endpoint, permitted);
                throw e;
            }
            if (attempts.stale
                    .getAsBoolean()) { // rewound or revoked meanwhile: a retry now could land after its re-read
                breakers.release(endpoint, permitted); // a half-open breaker's probe slot must not stay taken
                throw new Backoff.Stale();
            }
            boolean stoppedBefore = backoff.stopped();
            long t0 = System.nanoTime();
            WriteOutcome outcome = client.post(endpoint, payload);
            meters.requestBytes.increment(payload.length());
            long took = System.nanoTime() - t0;
            meters.writeLatency.record(took, TimeUnit.NANOSECONDS);
            if (outcome.isSuccess()) {
                faults.ok(endpoint);
                retryWarnings.ok(endpoint);
            }
            attempts.unanswered |=
                    outcome.status() == 0 && outcome.kind() == WriteOutcome.Kind.RETRYABLE; // sent, maybe stored
            boolean refused = refusedOutright(outcome);
            boolean failed = fails(outcome);
            boolean probed =
                    outcome.kind() == WriteOutcome.Kind.REJECTED && !refused; // its verdict waits for the probe
            attempts.refusalPermitted = permitted && probed;
            attempts.refusalTookNanos = took;
            attempts.refusalAfterStop = stoppedBefore;
            attempts.refusalSentNanos = sentNanos;
            if (permitted && !probed) {
                if (refused) {
                    breakers.recordRefusal(endpoint, took); // the data's refusal: the endpoint answered
                } else {
                    breakers.record(endpoint, took, outcome);
                }
            }
            if (!probed) {
                pacing.answered(endpoint, sentNanos, outcome, failed);
            }
            busy = Backoff.busy(outcome);
            if (failed && backoff.failedAtStop(outcome, stoppedBefore)) {
                meters.writeRequest("held", outcome.statusTag());
                throw new Backoff.Held(); // the TSDB fails at the stop: no write can be expected to succeed
            }
            if (refused) {
                meters.writeRequest("failed", outcome.statusTag());
                return outcome;
            }
            if (outcome.kind() == WriteOutcome.Kind.FAULT) {
                meters.writeRequest("fault", outcome.statusTag());
                return outcome;
            }
            if (outcome.kind() != WriteOutcome.Kind.RETRYABLE) {
                meters.writeRequest(outcome.isSuccess() ? "success" : "failed", outcome.statusTag());
                return outcome;
            }
            if (attempt >= retry.maxRetries()) {
                meters.writeRequest("failed", outcome.statusTag());
                return outcome;
            }
            retryWarnings.retrying(endpoint, outcome); // said at once, not only once the retries are spent
            meters.writeRequest("retry", outcome.statusTag());
            meters.retries.increment();
            long delay = retry.delayMs(attempt + 1, outcome.retryAfterMs());
            log.debug(
                    "retrying write to {} in {} ms after {} {}",
                    endpoint,
                    delay,
                    outcome.statusTag(),
                    outcome.detail());
            backoff.sleep(delay, Backoff.busy(outcome));
        }
    }

    /**
     * Whether {@code outcome} is a 4xx but 429 that {@code --on-configuration-fault refuse} refuses as it came, the remote
     * write specification's rule: a data refusal or a configuration fault's status, never probed, split, retried, nor
     * counted against the endpoint's breaker.
     */
    private boolean refusedOutright(WriteOutcome outcome) {
        return (outcome.kind() == WriteOutcome.Kind.REJECTED || outcome.kind() == WriteOutcome.Kind.FAULT)
                && onConfigurationFault.refuses(outcome);
    }

    /** Whether {@code outcome} is the endpoint's failure: retryable, or a configuration fault that is held. */
    private boolean fails(WriteOutcome outcome) {
        return outcome.kind() == WriteOutcome.Kind.RETRYABLE
                || (outcome.kind() == WriteOutcome.Kind.FAULT && !refusedOutright(outcome));
    }

    /** The endpoints' configuration faults: health, the give-up timer and the lines. */
    public WriteFaults faults() {
        return faults;
    }

    /**
     * Gives up on the batches held by a configuration fault (the fault outlasted {@code --write-fault-timeout} under
     * {@code --stop-at-end}): they are reported {@link WriteListener#abandoned}, so their offsets are never committed.
     * Idempotent.
     */
    public void abortFaulted() {
        faultGaveUp = true;
    }

    /** True once no write in flight is expected to complete: {@link #abortFaulted()}, or the stop held a write. */
    public boolean givingUp() {
        return faultGaveUp || backoff.batchesHeld() > 0;
    }

    /**
     * The writer is being stopped (SIGTERM): waits between attempts end; a write to a failing endpoint whose backoff step
     * has not passed is held without another attempt ({@link EndpointPacing#awaitTurn}), and a failure of an attempt
     * begun after the stop holds it ({@link WriteListener#abandoned}: never committed past, written again by the next
     * start). A 429's write waits as told ({@link Backoff#busy}). A stop during a write fault thus sends nothing before
     * its step and takes about the initial backoff's spacing, not the drain timeout. Idempotent.
     */
    public void stopping() {
        backoff.stop();
    }

    /** True once {@link #stopping()} was called: nothing is read again in this run from then on. Thread-safe. */
    public boolean stopped() {
        return backoff.stopped();
    }

    /** Batches held at the stop ({@link #stopping()}): not written, never acknowledged. */
    public int batchesHeld() {
        return backoff.batchesHeld();
    }

    /** The samples of the batches held at the stop. */
    public long samplesHeld() {
        return backoff.samplesHeld();
    }

    /** Batches submitted and not yet finished. */
    public int inFlight() {
        return inFlight.get();
    }

    /**
     * Waits until every submitted batch has finished, at most {@code timeout}.
     *
     * @return true when nothing is in flight any more
     */
    public boolean drain(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (drainLock) {
            while (inFlight.get() > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(drainLock, left);
            }
        }
        return true;
    }

    /** Stops: writes still running are interrupted and reported {@link WriteListener#abandoned}. Idempotent. */
    @Override
    public void close() {
        closed = true;
        executor.shutdownNow();
        try {
            executor.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
