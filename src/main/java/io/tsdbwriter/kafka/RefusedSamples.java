package io.tsdbwriter.kafka;

import io.tsdbwriter.deadletter.DeadLetterQueue;
import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.write.PacedLines;
import io.tsdbwriter.write.WriteBatch;
import io.tsdbwriter.write.WriteListener.Rejection;
import io.tsdbwriter.write.WriteOutcome;
import io.tsdbwriter.write.WriteTarget;
import io.tsdbwriter.write.http.SafeUrl;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a refused or given-up write means for the records behind its samples (DESIGN §6), the same for a segment's
 * records ({@code kafka.segment.RecordProcessor}) and a share group's deliveries ({@code
 * kafka.share.ShareRecordProcessor}): refused samples are
 * dead-lettered with their whole records, or counted refused without a dead-letter topic; a write given up after its
 * retries is dead-lettered whole. The batch is {@code done} once every record it dead-letters is stored (or at once when
 * counted), never before. The line about a refusal is said at most once a minute per write endpoint, with the
 * refusals since its last line ({@code refusalLines}, shared by every instance of the process); the meters count
 * every refusal.
 *
 * <p>Thread-safe: called on writer threads; the dead-letter callbacks count down an atomic.
 *
 * @param <S> the source of a batch's points (a record, or a delivery holding one)
 * @param <O> the batch's origin
 */
public final class RefusedSamples<S, O> {

    private static final Logger log = LoggerFactory.getLogger(RefusedSamples.class);

    private final WriterMeters meters;
    private final DeadLetterQueue deadLetters;
    private final Function<S, ConsumerRecord<byte[], byte[]>> record;
    private final Consumer<WriteBatch<S, O>> done;
    private final String heldWithoutDeadLetters;
    /** The kinds of {@link TimeRefusal} explained so far (each once). */
    private final Set<TimeRefusal> explained = ConcurrentHashMap.newKeySet();

    private final AtomicBoolean repeatsExplained = new AtomicBoolean();
    private final Predicate<S> doneBefore;
    private final PacedLines<WriteTarget> refusalLines;

    /**
     * @param deadLetters            {@code --dead-letter-topic}, or null
     * @param record                 the Kafka record of a source
     * @param done                   what a batch's end is for its records (acknowledge, release)
     * @param heldWithoutDeadLetters what happens to a given-up batch's records without a dead-letter topic (for the log)
     * @param refusalLines           the pace of the refusal lines per endpoint, shared by every instance of the process
     *                               ({@link io.tsdbwriter.write.BatchWriter#refusalLines()})
     */
    public RefusedSamples(
            WriterMeters meters,
            DeadLetterQueue deadLetters,
            Function<S, ConsumerRecord<byte[], byte[]>> record,
            Consumer<WriteBatch<S, O>> done,
            String heldWithoutDeadLetters,
            PacedLines<WriteTarget> refusalLines) {
        this(meters, deadLetters, record, done, heldWithoutDeadLetters, refusalLines, s -> false);
    }

    /**
     * As above, for sources that may be read again ({@code kafka.segment}: a rewind on a TSDB restart, a rebalance, a
     * restart of the writer).
     *
     * @param doneBefore whether a source's record was done before it was read again (its offset below what its partition
     *                   had acknowledged): a refusal of its samples as out of order or duplicate is the repeat's, counted
     *                   in [tsdbwriter_samples_repeats_refused_total], neither refused nor dead-lettered
     */
    public RefusedSamples(
            WriterMeters meters,
            DeadLetterQueue deadLetters,
            Function<S, ConsumerRecord<byte[], byte[]>> record,
            Consumer<WriteBatch<S, O>> done,
            String heldWithoutDeadLetters,
            PacedLines<WriteTarget> refusalLines,
            Predicate<S> doneBefore) {
        this.doneBefore = doneBefore;
        this.refusalLines = refusalLines;
        this.meters = meters;
        this.deadLetters = deadLetters;
        this.record = record;
        this.done = done;
        this.heldWithoutDeadLetters = heldWithoutDeadLetters;
    }

    /** The receiver refused some samples of the batch: dead-letter their records, or count them refused. */
    public void rejected(WriteBatch<S, O> batch, List<Rejection<S>> rejections) {
        rejections = withoutRepeats(rejections, batch.sentUnanswered());
        if (rejections.isEmpty()) {
            done.accept(batch);
            return;
        }
        int samples = 0;
        Map<S, Boolean> sources = new IdentityHashMap<>();
        for (Rejection<S> r : rejections) {
            samples += r.samples();
            sources.put(r.source(), Boolean.TRUE);
        }
        Rejection<S> first = rejections.get(0);
        TimeRefusal time = TimeRefusal.of(first.outcome().detail()).orElse(null);
        if (time != null && explained.add(time)) {
            log.warn( // troubleshooting: the receiver refuses samples older than a series' newest one
                    "{}", // troubleshooting: the receiver refuses samples older than its head block's minimum time
                    time.fix()); // troubleshooting: the receiver refuses samples older than its out-of-order window
        }
        // said at most once a minute per endpoint: a receiver that refuses every request (e.g. out of bounds) would
        // else say it per request
        long refusals = refusalLines.note(first.endpoint(), 1);
        if (deadLetters == null) {
            meters.samplesRefused(
                    first.outcome().status() + " " + first.outcome().detail(), samples);
            if (refusals > 0) {
                log.error(
                        "the receiver refused {} samples of {} record(s) ({} {}); no --dead-letter-topic: counted as "
                                + "refused (write endpoint {}: {} refused write(s) since this line was last said, this "
                                + "one included; it repeats at most once a minute per endpoint, "
                                + "tsdbwriter_samples_refused_total counts every sample)",
                        samples,
                        sources.size(),
                        first.outcome().status(),
                        first.outcome().detail(),
                        SafeUrl.redact(first.endpoint().writeUrl()),
                        refusals);
            }
            done.accept(batch);
            return;
        }
        meters.samplesDeadLettered.increment(samples);
        if (refusals > 0) {
            log.warn(
                    "the receiver refused {} samples of {} record(s) ({} {}); dead-lettering them (write endpoint {}: "
                            + "{} refused write(s) since this line was last said, this one included; it repeats at "
                            + "most once a minute per endpoint, tsdbwriter_samples_dead_lettered_total counts every "
                            + "sample)",
                    samples,
                    sources.size(),
                    first.outcome().status(),
                    first.outcome().detail(),
                    SafeUrl.redact(first.endpoint().writeUrl()),
                    refusals);
        }
        deadLetterThenDone(
                batch,
                sources.keySet(),
                "vm_rejected",
                first.outcome().status() + " " + first.outcome().detail());
    }

    /**
     * The rejections left once the repeats' are counted (DESIGN §4: a record read again after a rewind, a rebalance or a
     * restart is sent again; a receiver without an out-of-order window refuses what it stored the first time): a
     * rejection whose record was done before — or whose batch was sent before without an answer (the receiver may have
     * stored that attempt; {@link WriteBatch#sentUnanswered()}) — and whose refusal is about order or duplicates.
     */
    private List<Rejection<S>> withoutRepeats(List<Rejection<S>> rejections, boolean sentUnanswered) {
        List<Rejection<S>> rest = null;
        long repeats = 0;
        for (int i = 0; i < rejections.size(); i++) {
            Rejection<S> r = rejections.get(i);
            boolean repeat = (sentUnanswered || doneBefore.test(r.source()))
                    && orderRefusal(r.outcome().detail());
            if (repeat && rest == null) {
                rest = new ArrayList<>(rejections.subList(0, i));
            }
            if (repeat) {
                repeats += r.samples();
            } else if (rest != null) {
                rest.add(r);
            }
        }
        if (rest == null) {
            return rejections;
        }
        meters.samplesRepeatsRefused.increment(repeats);
        if (repeatsExplained.compareAndSet(false, true)) {
            log.info(
                    "the receiver refused {} sample(s) of records read again (a rewind, a rebalance or a restart: offsets it had "
                            + "acknowledged before) as out of order or duplicate: stored the first time, so counted as repeats "
                            + "(tsdbwriter_samples_repeats_refused_total), not as failed; this line is said once",
                    repeats);
        }
        return rest;
    }

    /** Whether a refusal's detail is about order (out of order, out of bounds) or a duplicate timestamp. */
    static boolean orderRefusal(String detail) {
        if (detail == null) {
            return false;
        }
        Optional<TimeRefusal> time = TimeRefusal.of(detail);
        return (time.isPresent() && time.get() != TimeRefusal.TOO_OLD)
                || detail.toLowerCase(Locale.ROOT).contains("duplicate sample");
    }

    /**
     * What a receiver's refusal says about its samples' time, told by its words: Prometheus answers a remote write whose
     * samples its TSDB refuses with 400 and the error's text ({@code storage.ErrOutOfOrderSample} {@code out of order
     * sample}, {@code storage.ErrOutOfBounds} {@code out of bounds}, {@code storage.ErrTooOldSample} {@code too old
     * sample}); Thanos receive as Prometheus; Mimir's error ids hold the same words hyphenated
     * ({@code err-mimir-sample-out-of-order}). VictoriaMetrics takes any order and never says them. Each has its own fix,
     * logged once per reader.
     */
    enum TimeRefusal {
        /**
         * {@code out of order sample}: no out-of-order window and a sample older than its series' newest one, but not
         * older than the head's minimum time.
         */
        OUT_OF_ORDER(
                "the receiver refuses samples older than a series' newest one (out of order). With --ordering series "
                        + "(remote write's default) each series is sent in offset order, so the input is out of order: one series in several "
                        + "partitions (a producer that does not key records by series or host: key the topic by series or host), a replay "
                        + "that starts over, or data older than what the receiver holds; with --ordering none, --parallelism > 1 also sends "
                        + "a series' minutes out of order (use --ordering series). Only the refused samples are lost, the rest of their "
                        + "requests is written. Or open the receiver's out-of-order window to the age of the oldest sample (Prometheus: "
                        + "storage.tsdb.out_of_order_time_window; Mimir: -ingester.out-of-order-time-window; Thanos receive: "
                        + "--tsdb.out-of-order.time-window)"),
        /**
         * {@code out of bounds}: no out-of-order window and a sample older than the head block's minimum time (by
         * default about an hour before the TSDB's newest sample, and never before its last block): too old for the head,
         * whatever its series' order.
         */
        OUT_OF_BOUNDS(
                "the receiver refuses samples older than its head block's minimum time (out of bounds): without an "
                        + "out-of-order window Prometheus takes no sample older than about an hour before its newest one (half its "
                        + "head's block range) nor older than its last block, whatever the series' order. The data is too old for the "
                        + "receiver: a backlog or a replay of older records, or a receiver that already holds newer data. Only the "
                        + "refused samples are lost, the rest of their requests is written. Open the receiver's out-of-order window to "
                        + "the age of the oldest sample (Prometheus: storage.tsdb.out_of_order_time_window; Mimir: "
                        + "-ingester.out-of-order-time-window; Thanos receive: --tsdb.out-of-order.time-window), or write data that old "
                        + "as blocks (promtool tsdb create-blocks-from openmetrics), or read from a later offset"),
        /**
         * {@code too old sample}: an out-of-order window is open, and the sample is older than it (counted back from the
         * TSDB's newest sample).
         */
        TOO_OLD(
                "the receiver refuses samples older than its out-of-order window (too old sample): its window is open, but "
                        + "these samples are older than it, counted back from its newest sample. The data is too old for the "
                        + "receiver: a backlog or a replay of older records. Only the refused samples are lost, the rest of their "
                        + "requests is written. Widen the window to the age of the oldest sample (Prometheus: "
                        + "storage.tsdb.out_of_order_time_window; Mimir: -ingester.out-of-order-time-window; Thanos receive: "
                        + "--tsdb.out-of-order.time-window), or write data that old as blocks (promtool tsdb "
                        + "create-blocks-from openmetrics), or read from a later offset");

        private final String fix;

        TimeRefusal(String fix) {
            this.fix = fix;
        }

        /** The one-line explanation and fix, logged once per reader. */
        String fix() {
            return fix;
        }

        /**
         * The kind a refusal's detail names (any case; hyphens as spaces), or empty when it names none of them.
         *
         * @param detail the refusal's detail (the receiver's response body, shortened), may be null
         */
        static Optional<TimeRefusal> of(String detail) {
            if (detail == null) {
                return Optional.empty();
            }
            String d = detail.toLowerCase(Locale.ROOT).replace('-', ' ');
            if (d.contains("out of bounds")) {
                return Optional.of(OUT_OF_BOUNDS);
            }
            if (d.contains("too old sample") || d.contains("sample too old")) {
                return Optional.of(TOO_OLD);
            }
            if (d.contains("out of order")) {
                return Optional.of(OUT_OF_ORDER);
            }
            return Optional.empty();
        }
    }

    /** The write failed after its retries (policy dead-letter): dead-letter every record of the batch. */
    public void gaveUp(WriteBatch<S, O> batch, WriteOutcome outcome) {
        if (deadLetters == null) {
            // cannot happen (the configuration requires a dead-letter topic for this policy); never end what was not
            // stored
            log.error(
                    "write of {} samples given up ({} {}) without a dead-letter topic; {}",
                    batch.samples(),
                    outcome.statusTag(),
                    outcome.detail(),
                    heldWithoutDeadLetters);
            return;
        }
        Map<S, Boolean> sources = new IdentityHashMap<>();
        for (int i = 0; i < batch.points(); i++) {
            sources.put(batch.source(i), Boolean.TRUE);
        }
        meters.samplesDeadLettered.increment(batch.samples());
        log.warn(
                "write of {} samples given up after its retries ({} {}); dead-lettering {} record(s)",
                batch.samples(),
                outcome.statusTag(),
                outcome.detail(),
                sources.size());
        deadLetterThenDone(batch, sources.keySet(), "write_failed", outcome.statusTag() + " " + outcome.detail());
    }

    /** Dead-letters every source's record, then ends the batch once all are stored. */
    private void deadLetterThenDone(WriteBatch<S, O> batch, Set<S> sources, String reason, String error) {
        AtomicInteger left = new AtomicInteger(sources.size());
        for (S s : sources) {
            deadLetters.send(record.apply(s), reason, error, () -> {
                if (left.decrementAndGet() == 0) {
                    done.accept(batch);
                }
            });
        }
    }
}
