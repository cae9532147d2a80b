package io.tsdbwriter.app;

import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A dying thread is a dying process (DESIGN §2): the process-wide uncaught-exception handler. Any {@code Throwable}
 * (an {@code Error} such as {@code StackOverflowError} included) that ends a segment (poll), write (virtual),
 * group-member (commit) or dead-letter retry thread is logged once with its stack; the first one runs the
 * {@linkplain #onFirstDeath stop action} (the writer stops intake, drains, commits only the watermark and exits
 * non-zero). Installed with {@link Thread#setDefaultUncaughtExceptionHandler}, so it covers every thread that has no
 * handler of its own (Kafka's own client threads keep theirs).
 *
 * <p>Thread-safe.
 */
public final class ThreadDeaths implements Thread.UncaughtExceptionHandler {

    private static final Logger log = LoggerFactory.getLogger(ThreadDeaths.class);

    private final AtomicReference<Throwable> first = new AtomicReference<>();
    private final AtomicReference<String> firstThread = new AtomicReference<>();
    private volatile Runnable onFirstDeath = () -> {};

    /** What to do (once) when the first thread dies; must not block. */
    public void onFirstDeath(Runnable action) {
        this.onFirstDeath = action;
    }

    @Override
    public void uncaughtException(Thread t, Throwable e) {
        boolean isFirst = first.compareAndSet(null, e);
        if (isFirst) {
            firstThread.set(t.getName());
        }
        try {
            log.error(
                    "thread {} died of {}: stopping the process (committing only the watermark, then exit 1)",
                    t.getName(),
                    e,
                    e);
        } catch (Throwable logging) { // e.g. out of memory while logging: still stop
            System.err.println("thread " + t.getName() + " died of " + e + "; stopping the process");
        }
        if (isFirst) {
            onFirstDeath.run();
        }
    }

    /** Whether any thread died. */
    public boolean anyDied() {
        return first.get() != null;
    }

    /** The first death as {@code "<thread>: <throwable>"}, or null. */
    public String firstDeath() {
        Throwable e = first.get();
        return e == null ? null : firstThread.get() + ": " + e;
    }
}
