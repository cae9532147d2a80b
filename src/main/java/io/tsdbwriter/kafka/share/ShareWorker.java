package io.tsdbwriter.kafka.share;

import io.tsdbwriter.durability.DurabilityClock;
import io.tsdbwriter.kafka.IntakeSettings;
import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.write.BatchWriter;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One share consumer of a share group (KIP-932; {@code KafkaShareConsumer} javadoc, "Record Delivery and
 * Acknowledgement", "Extending Processing Times using Renewal Acknowledgement") with explicit acknowledgement, and its
 * processing thread. The poll thread owns the consumer: it hands new records to the processing thread (decode, amplify,
 * write through {@link ShareRecordProcessor}), and acknowledges every record a poll returned before the next poll —
 * ACCEPT (or REJECT) once the record is done, RENEW while its samples wait for the TSDB (a renewed record comes back in a
 * later poll). A poll round waits for its records at most a third of the acquisition lock, so a record is renewed every
 * third of the lock period however long an outage lasts: no delivery attempt is spent on the writer's own wait, and
 * the two thirds left cover a record that waited in the client's buffer before poll returned it, the commit, and a
 * loaded host's pauses (at half the lock, 1,340 of 12,820 records expired on two busy cores). Every round's
 * acknowledgements, renewals included, are committed with {@code commitSync} before the next poll (a renewal left to
 * the next poll rides on a ShareFetch that acquires records poll does not return while renewed ones are outstanding:
 * they would expire unseen); a partition whose commit fails has its records delivered again
 * (written twice: the TSDB's deduplication makes that harmless) and is counted.
 *
 * <p>On {@link #stop()} new deliveries are RELEASEd at once, held ones are finished (up to the drain timeout) and
 * acknowledged, and closing the consumer releases whatever is left to the group. Thread-safety: {@link #run()} on its
 * own thread; {@link #stop()} from any.
 */
final class ShareWorker implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(ShareWorker.class);
    private static final Duration POLL_IDLE = Duration.ofMillis(500);
    private static final Duration POLL_BUSY = Duration.ofMillis(50);
    /** With some records of a round done, how long the round waits for the others before acknowledging what is done. */
    private static final long ROUND_LINGER_MS = 200;
    /**
     * The acquisition lock assumed until the consumer knows the group's ({@code acquisitionLockTimeoutMs()} is empty until
     * the broker told it): the smallest a broker allows ({@code group.share.min.record.lock.duration.ms} ≥ 1 s), so that a
     * record is never held past a lock shorter than assumed (the default lock is 30 s; tests run 6 s).
     */
    private static final long DEFAULT_LOCK_MS = 1_000;

    private final Map<String, Object> props;
    private final List<String> topics;
    private final ShareRecordProcessor processor;
    private final WriterMeters meters;
    private final Duration drainTimeout;
    private final String name;
    private final BlockingQueue<ShareRecordProcessor.Delivery> queue = new LinkedBlockingQueue<>();
    private final Object doneSignal = new Object();
    /** Records this consumer holds, by topic-partition-offset (poll thread only). */
    private final Map<RecordId, ShareRecordProcessor.Delivery> held = new HashMap<>();
    /**
     * Records accepted (their writes acknowledged) whose writes are not yet stored, oldest first (poll thread only): kept
     * for the durability window so a TSDB restart writes them again from memory. Holding them in the share group
     * instead (RENEW until stored) would stop the consumer acquiring more: a KIP-932 consumer's poll returns renewed
     * records again, not new ones, so a member would write at most max.poll.records per window.
     */
    private final ArrayDeque<ShareRecordProcessor.Delivery> unstored = new ArrayDeque<>();

    private volatile boolean stopping;
    private volatile boolean processingStop;
    private volatile boolean clean = true;
    private volatile KafkaShareConsumer<byte[], byte[]> consumer;
    /** When an acknowledged write counts as stored, and the TSDB restarts seen. */
    private final DurabilityClock durability;
    /** The TSDB restarts this worker has re-written its records for (poll thread). */
    private long restartsSeen;

    private record RecordId(String topic, int partition, long offset) {
        static RecordId of(ConsumerRecord<?, ?> r) {
            return new RecordId(r.topic(), r.partition(), r.offset());
        }
    }

    /** The write path: whether the stop held writes (the TSDB failing), so nothing more will be acknowledged. */
    private final BatchWriter writer;

    ShareWorker(
            String name,
            Map<String, Object> props,
            List<String> topics,
            IntakeSettings settings,
            Duration drainTimeout) {
        this.name = name;
        this.props = props;
        this.topics = List.copyOf(topics);
        this.processor = new ShareRecordProcessor(settings);
        this.meters = settings.meters();
        this.writer = settings.writer();
        this.drainTimeout = drainTimeout;
        this.durability = settings.durability();
        this.restartsSeen = durability.state().restarts();
    }

    /** Asks the worker to stop taking records and finish what it holds. Idempotent. */
    void stop() {
        stopping = true;
        KafkaShareConsumer<byte[], byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
    }

    /** True when the worker stopped with every record it held acknowledged. */
    boolean cleanStop() {
        return clean;
    }

    private void signalDone() {
        synchronized (doneSignal) {
            doneSignal.notifyAll();
        }
    }

    @Override
    public void run() {
        Thread processing = Thread.ofPlatform().name(name + "-process").start(this::processLoop);
        KafkaShareConsumer<byte[], byte[]> c = new KafkaShareConsumer<>(props);
        consumer = c;
        long lockMs = DEFAULT_LOCK_MS;
        c.setAcknowledgementCommitCallback((offsets, exception) -> {
            if (exception != null) {
                meters.shareAcknowledgements(
                        "failed", offsets.values().stream().mapToLong(Set::size).sum());
                log.warn(
                        "{}: acknowledgements of {} record(s) failed ({}): they are delivered again",
                        name,
                        offsets.values().stream().mapToLong(Set::size).sum(),
                        exception.toString());
            }
        });
        try {
            c.subscribe(topics);
            while (!stopping) {
                ConsumerRecords<byte[], byte[]> records;
                try {
                    records = c.poll(held.isEmpty() ? POLL_IDLE : POLL_BUSY);
                } catch (WakeupException e) {
                    break;
                }
                lockMs = c.acquisitionLockTimeoutMs().map(Integer::longValue).orElse(lockMs);
                round(c, records, lockMs, false);
                forgetExpired(lockMs);
                rewriteAfterRestart();
            }
            drain(c, lockMs);
        } catch (KafkaException e) {
            clean = false;
            log.error("{}: share consumer failed: {}", name, e.toString());
        } catch (InterruptedException e) {
            clean = false;
            Thread.currentThread().interrupt();
        } finally {
            processingStop = true;
            processing.interrupt();
            try {
                processing.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (!unstored.isEmpty()) {
                log.warn(
                        "{}: {} accepted record(s) not yet known stored at the stop (the durability window outlasted the drain "
                                + "timeout): a TSDB crash now would lose their last samples",
                        name,
                        unstored.size());
            }
            if (!held.isEmpty()) {
                clean = false;
                log.warn("{}: {} record(s) not finished: released to the group, delivered again", name, held.size());
            }
            try {
                c.close(Duration.ofSeconds(10)); // commits pending acknowledgements, releases what is still acquired
            } catch (RuntimeException e) {
                log.warn("{}: closing the share consumer: {}", name, e.toString());
            }
        }
    }

    /**
     * One poll's records: new ones to the processing thread (or, draining, RELEASEd at once), then every one
     * acknowledged — ACCEPT/REJECT when done, RENEW when not — after waiting for them at most a third of the lock.
     */
    private void round(
            KafkaShareConsumer<byte[], byte[]> c,
            ConsumerRecords<byte[], byte[]> records,
            long lockMs,
            boolean draining)
            throws InterruptedException {
        if (records.isEmpty()) {
            return;
        }
        long start = System.currentTimeMillis();
        List<ShareRecordProcessor.Delivery> due = new ArrayList<>(records.count());
        List<ConsumerRecord<byte[], byte[]>> returned =
                new ArrayList<>(records.count()); // this poll's instance of each
        int released = 0;
        for (ConsumerRecord<byte[], byte[]> r : records) {
            RecordId id = RecordId.of(r);
            ShareRecordProcessor.Delivery d = held.get(id);
            if (d == null) {
                if (draining) {
                    c.acknowledge(r, AcknowledgeType.RELEASE);
                    released++;
                    continue;
                }
                if (r.deliveryCount().orElse((short) 1) > 1) {
                    meters.shareRedeliveries.increment();
                }
                d = new ShareRecordProcessor.Delivery(r, this::signalDone);
                held.put(id, d);
                queue.put(d);
            }
            d.returnedMs = start;
            due.add(d);
            returned.add(r);
        }
        meters.shareAcknowledgements("release", released);
        // a round waits for its records at most a third of the lock: those still pending are renewed then
        long renewBy = start + Math.max(50, lockMs / 3);
        awaitDone(due, renewBy);
        Map<TopicPartition, Acks> acks = new HashMap<>();
        for (int i = 0; i < due.size(); i++) {
            ShareRecordProcessor.Delivery d = due.get(i);
            ConsumerRecord<byte[], byte[]> current = returned.get(i);
            Acks a = acks.computeIfAbsent(new TopicPartition(current.topic(), current.partition()), tp -> new Acks());
            if (d.done()) {
                c.acknowledge(current, d.acknowledgement());
                held.remove(RecordId.of(d.record));
                if (!durability.off() && d.acknowledgement() == AcknowledgeType.ACCEPT) {
                    unstored.addLast(d); // kept until stored: a TSDB restart before then writes it again
                }
                if (d.acknowledgement() == AcknowledgeType.REJECT) {
                    a.rejected++;
                } else {
                    a.accepted++;
                }
            } else {
                c.acknowledge(current, AcknowledgeType.RENEW);
                a.renewed.add(RecordId.of(current));
            }
        }
        // every round's acknowledgements are committed here, RENEW included: left to the next poll, a renewal rides on
        // a
        // ShareFetch that acquires further records, which poll does not return while renewed ones are outstanding —
        // they expire unseen and come again (kafka-clients 4.3 ShareConsumerImpl.collect). Committed, the renewed
        // records come back from the next poll without a fetch
        Set<TopicPartition> failed = commit(c);
        for (Map.Entry<TopicPartition, Acks> e : acks.entrySet()) {
            Acks a = e.getValue();
            if (!failed.contains(e.getKey())) { // counted once the broker took them: a failed ACCEPT comes again
                meters.shareAcknowledgements("accept", a.accepted);
                meters.shareAcknowledgements("reject", a.rejected);
                meters.shareAcknowledgements("renew", a.renewed.size());
            } else if (!a.renewed.isEmpty()) {
                // a renewal refused (the lock ran out first, e.g. the process paused longer than it): the records are
                // no longer this consumer's and never come back to its poll unless delivered to it again; kept as held
                // they would never be acknowledged, and the stop would wait for them and call itself unclean
                a.renewed.forEach(held::remove);
                log.warn(
                        "{}: renewal of {} record(s) of {} refused: they are the group's again (delivered again, written again)",
                        name,
                        a.renewed.size(),
                        e.getKey());
            }
        }
    }

    /**
     * Forgets the held records no poll returned for two lock periods: only a returned record is renewed (at most half a
     * lock after its return), so their locks ran out (the process paused, or a round outlasted the lock) and the group
     * hands them to a member again. Kept, they would never be acknowledged and the stop would wait for them.
     */
    private void forgetExpired(long lockMs) {
        long now = System.currentTimeMillis();
        int before = held.size();
        held.values().removeIf(d -> now - d.returnedMs > 2 * lockMs);
        if (held.size() < before) {
            log.warn(
                    "{}: {} held record(s) not returned by a poll for two lock periods ({} ms): their locks ran out, they are "
                            + "the group's again (delivered again, written again)",
                    name,
                    before - held.size(),
                    2 * lockMs);
        }
    }

    /** One round's acknowledgements of one partition. */
    private static final class Acks {
        int accepted;
        int rejected;
        final List<RecordId> renewed = new ArrayList<>();
    }

    /**
     * Called after every poll. Without a restart: forgets the accepted records that are now stored. After a TSDB
     * restart (DESIGN §4): every accepted record not yet stored, and every held record whose processing began, may have
     * samples the TSDB acknowledged and lost, so each is processed again under a new delivery (the old one's late
     * completions are dropped with it): the accepted ones from this process's memory, the held ones before they are
     * acknowledged. Records not yet processed wait their turn.
     */
    private void rewriteAfterRestart() throws InterruptedException {
        DurabilityClock.State state = durability.state();
        long restarts = state.restarts();
        if (restarts == restartsSeen) {
            while (!unstored.isEmpty() && unstored.peekFirst().stored(state)) {
                unstored.pollFirst();
            }
            return;
        }
        restartsSeen = restarts;
        int again = 0;
        int accepted = unstored.size();
        for (int i = 0; i < accepted; i++) { // accepted already: written again from memory, never acknowledged again
            ShareRecordProcessor.Delivery fresh =
                    new ShareRecordProcessor.Delivery(unstored.pollFirst().record, this::signalDone);
            unstored.addLast(fresh);
            queue.put(fresh);
            again++;
        }
        for (Map.Entry<RecordId, ShareRecordProcessor.Delivery> e : held.entrySet()) {
            if (e.getValue().started()) {
                ShareRecordProcessor.Delivery fresh =
                        new ShareRecordProcessor.Delivery(e.getValue().record, this::signalDone);
                fresh.returnedMs = e.getValue().returnedMs;
                e.setValue(fresh);
                queue.put(fresh);
                again++;
            }
        }
        meters.recordsReread.increment(again);
        log.warn(
                "{}: TSDB restart: {}: {} held record(s) written again before they are accepted",
                name,
                durability.lastRestart(),
                again);
    }

    /** Waits until every record of the round is done, or the renewal deadline, or (some done) the round's linger. */
    private void awaitDone(List<ShareRecordProcessor.Delivery> due, long renewBy) throws InterruptedException {
        long lingerFrom = -1;
        while (true) {
            int done = 0;
            for (ShareRecordProcessor.Delivery d : due) {
                if (d.done()) {
                    done++;
                }
            }
            long now = System.currentTimeMillis();
            if (done == due.size() || now >= renewBy) {
                return;
            }
            if (done > 0) {
                if (lingerFrom < 0) {
                    lingerFrom = now;
                } else if (now - lingerFrom >= ROUND_LINGER_MS) {
                    return;
                }
            }
            synchronized (doneSignal) {
                doneSignal.wait(Math.max(1, Math.min(renewBy - now, 20)));
            }
        }
    }

    /** Commits the round's acknowledgements; the partitions whose commit failed (counted by the commit callback). */
    private Set<TopicPartition> commit(KafkaShareConsumer<byte[], byte[]> c) {
        return ShareCommits.commit(c, name, log);
    }

    /**
     * After {@link #stop()}: keeps acknowledging until every held record is done or the drain timeout passes — or
     * until the stop held writes (the TSDB failing) and none is in flight: their records are released on close.
     */
    private void drain(KafkaShareConsumer<byte[], byte[]> c, long lockMs) throws InterruptedException {
        long deadline = System.currentTimeMillis() + drainTimeout.toMillis();
        while ((!held.isEmpty() || !unstored.isEmpty())
                && System.currentTimeMillis() < deadline
                && !(writer.batchesHeld() > 0 && writer.inFlight() == 0)) {
            ConsumerRecords<byte[], byte[]> records;
            try {
                records = c.poll(POLL_BUSY);
            } catch (WakeupException e) {
                continue; // the stop's own wakeup
            }
            round(c, records, Math.min(lockMs, 2 * Math.max(100, deadline - System.currentTimeMillis())), true);
            forgetExpired(lockMs);
            rewriteAfterRestart();
        }
    }

    /** The processing thread: records in delivery order, the open batch flushed whenever no record waits. */
    private void processLoop() {
        try {
            while (!processingStop || !queue.isEmpty()) {
                ShareRecordProcessor.Delivery d = queue.poll(20, TimeUnit.MILLISECONDS);
                if (d != null) {
                    processor.process(d);
                }
                if (queue.isEmpty()) {
                    processor.flush();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // stopping: what is unprocessed stays held and is released on close
        } finally {
            processor.publishCounts(); // what was processed since the last batch, even when interrupted mid-record
        }
    }
}
