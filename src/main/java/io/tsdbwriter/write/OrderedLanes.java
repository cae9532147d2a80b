package io.tsdbwriter.write;

import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Per-series order on the write path ({@link Ordering#SERIES}, DESIGN §6 "Per-series order"): a fixed number of lanes,
 * each a FIFO of batches written one at a time, in the order they were queued, through the {@link BatchWriter} (its
 * permits, retries, splits and response policy unchanged). A batch that is retried, split, paused or held by a fault
 * holds its lane (head of line): no later batch of the lane is sent before the writer is done with it. Lanes write in
 * parallel, each taking a write permit per request. This follows the remote write specification (a sender MUST send
 * each series' samples in timestamp order, MAY send different series in parallel) and Prometheus' own sender (a
 * series hashed to one shard, one request in flight per shard); the caller puts every batch of a series on one lane.
 *
 * <p>A lane's writer is a virtual thread, started when its first batch arrives and ended when its queue is empty. A
 * batch whose listener says it is {@link WriteListener#stale stale} by its turn is not sent ({@link
 * WriteListener#abandoned}); so is everything queued after {@link #close()}.
 *
 * <p>Thread-safe. Lifecycle: {@link #open(int)} once before the first {@link #submit}, {@link #close()} at the end.
 */
public final class OrderedLanes implements AutoCloseable {

    /** Batches a lane holds queued besides the one it is writing: 2. Beyond it {@link #submit} waits. */
    public static final int QUEUE = 2;

    private final BatchWriter writer;
    private final ExecutorService executor = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("write-lane-", 0).factory());
    private final AtomicInteger queued = new AtomicInteger();
    private volatile List<Lane> lanes = List.of();
    private volatile boolean closed;

    /** @param writer writes each batch when its turn comes */
    public OrderedLanes(BatchWriter writer) {
        this.writer = writer;
    }

    /**
     * Opens {@code n} lanes. A series keeps its lane for the whole run, so the number is set once: the write permits at
     * start (DESIGN §6, §10).
     *
     * @throws IllegalArgumentException when {@code n < 1}
     * @throws IllegalStateException when opened already
     */
    public synchronized void open(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("lanes must be >= 1, got " + n);
        }
        if (!lanes.isEmpty()) {
            throw new IllegalStateException("lanes are open already");
        }
        Lane[] l = new Lane[n];
        for (int i = 0; i < n; i++) {
            l[i] = new Lane();
        }
        lanes = List.of(l);
    }

    /** The number of lanes; 0 before {@link #open(int)}. */
    public int size() {
        return lanes.size();
    }

    /** Batches queued on the lanes or being written by them. */
    public int queued() {
        return queued.get();
    }

    /**
     * Queues {@code batch} on {@code lane}: written after every batch queued on that lane before it, once the writer is
     * done with those. Waits while the lane holds {@value #QUEUE} batches besides the one it writes (the backpressure,
     * as a write permit is for {@link BatchWriter#submit}).
     *
     * @param lane 0 ≤ lane &lt; {@link #size()}
     * @throws InterruptedException when interrupted while waiting (the batch was not queued)
     * @throws IllegalStateException after {@link #close()}, or before {@link #open(int)}
     */
    public <S, O> void submit(int lane, WriteBatch<S, O> batch, WriteListener<S, O> listener)
            throws InterruptedException {
        List<Lane> l = lanes;
        if (l.isEmpty()) {
            throw new IllegalStateException("no lanes open");
        }
        l.get(lane).queue(new Queued<>(batch, listener));
    }

    /** A batch waiting in a lane. */
    private record Queued<S, O>(WriteBatch<S, O> batch, WriteListener<S, O> listener) {
        void abandon() {
            listener.abandoned(batch);
        }
    }

    /** One lane: a FIFO written by at most one virtual thread at a time. Guarded by its own monitor. */
    private final class Lane {
        private final ArrayDeque<Queued<?, ?>> queue = new ArrayDeque<>();
        private boolean running;

        synchronized void queue(Queued<?, ?> q) throws InterruptedException {
            while (queue.size() >= QUEUE && !closed) {
                wait(250);
            }
            if (closed) {
                throw new IllegalStateException("writer is closed");
            }
            queue.addLast(q);
            queued.incrementAndGet();
            if (!running) {
                running = true;
                try {
                    executor.execute(this::drain);
                } catch (RuntimeException e) { // rejected: closed meanwhile
                    running = false;
                    abandonQueued();
                }
            }
        }

        private void drain() {
            while (true) {
                Queued<?, ?> q;
                synchronized (this) {
                    q = queue.pollFirst();
                    if (q == null) {
                        running = false;
                        return;
                    }
                    notifyAll();
                }
                boolean goOn = write(q);
                queued.decrementAndGet();
                if (!goOn) {
                    synchronized (this) {
                        running = false;
                        abandonQueued();
                    }
                    return;
                }
            }
        }

        /** Tells every queued batch abandoned (closed, or interrupted). Holds the monitor. */
        private void abandonQueued() {
            for (Queued<?, ?> q; (q = queue.pollFirst()) != null; ) {
                queued.decrementAndGet();
                q.abandon();
            }
            notifyAll();
        }
    }

    /**
     * Writes one batch on its lane's thread and waits until the writer is done with it (written, refused, given up or
     * abandoned). False when the lane must stop: closed, or interrupted (the batch is then abandoned, or still ends on
     * the writer's thread if it was started).
     */
    private <S, O> boolean write(Queued<S, O> q) {
        if (closed || q.listener().stale(q.batch())) {
            q.abandon();
            return !closed;
        }
        Ended<S, O> ended = new Ended<>(q.listener());
        try {
            writer.submit(q.batch(), ended);
            ended.await();
            return true;
        } catch (InterruptedException e) {
            if (!ended.started) {
                q.abandon();
            }
            return false;
        } catch (IllegalStateException e) { // the writer closed meanwhile
            q.abandon();
            return false;
        }
    }

    /** Forwards how a batch ended and lets the lane go on. */
    private static final class Ended<S, O> implements WriteListener<S, O> {
        private final WriteListener<S, O> to;
        private final CountDownLatch done = new CountDownLatch(1);
        /** The writer took the batch (from then on the writer tells how it ends). */
        volatile boolean started;

        Ended(WriteListener<S, O> to) {
            this.to = to;
        }

        void await() throws InterruptedException {
            started = true; // submit returned: the write runs
            done.await();
        }

        @Override
        public void written(WriteBatch<S, O> batch) {
            forward(() -> to.written(batch));
        }

        @Override
        public void rejected(WriteBatch<S, O> batch, List<Rejection<S>> rejections) {
            forward(() -> to.rejected(batch, rejections));
        }

        @Override
        public void gaveUp(WriteBatch<S, O> batch, WriteOutcome outcome) {
            forward(() -> to.gaveUp(batch, outcome));
        }

        @Override
        public void abandoned(WriteBatch<S, O> batch) {
            forward(() -> to.abandoned(batch));
        }

        /** Tells the batch's own listener, then lets the lane go on, whatever the listener does. */
        private void forward(Runnable tell) {
            try {
                tell.run();
            } finally {
                done.countDown();
            }
        }
    }

    /** Stops: what is queued is abandoned, lanes' threads are interrupted. Idempotent. */
    @Override
    public void close() {
        closed = true;
        for (Lane l : lanes) {
            synchronized (l) {
                l.abandonQueued();
            }
        }
        executor.shutdownNow();
        try {
            executor.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
