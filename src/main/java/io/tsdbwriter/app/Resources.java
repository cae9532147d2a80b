package io.tsdbwriter.app;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The parts of one {@link WriterService#run()} that must be closed, in one list: each is registered as it is created
 * ({@link #add}, {@link #onClose}) and {@link #close()} closes them in the reverse order, the last registered first.
 *
 * <p>A close that throws ends the closing, as a sequence of close calls in a {@code finally} does: its exception
 * propagates (and so replaces whatever the run returned or threw), the parts registered before it stay open. A checked
 * exception of an {@link AutoCloseable#close()} (no part of a run declares one) propagates wrapped in an
 * {@link IllegalStateException}. Nulls are ignored (a part the run's flags leave out). Not thread-safe: the thread of the
 * run registers and closes.
 */
final class Resources implements AutoCloseable {

    private final Deque<Runnable> closes = new ArrayDeque<>();

    /** Registers {@code part} (null: nothing), to be closed before every part registered earlier; returns it. */
    <T extends AutoCloseable> T add(T part) {
        if (part != null) {
            closes.push(() -> close(part));
        }
        return part;
    }

    /** Registers {@code action}, to run in place of a close: before every part registered earlier. */
    void onClose(Runnable action) {
        closes.push(action);
    }

    /** Closes the parts, the last registered first; the first that throws ends the closing (see the type). */
    @Override
    public void close() {
        while (!closes.isEmpty()) {
            closes.pop().run();
        }
    }

    private static void close(AutoCloseable part) {
        try {
            part.close();
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("closing " + part + " failed", e);
        }
    }
}
