package io.tsdbwriter.capacity.search;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * An output stream that writes each whole line to a shared {@link PrintStream} with a prefix ({@code [NAME] }), so
 * the lines of searches running side by side stay whole and say whose they are. A line is written when its
 * {@code \n} comes, or at {@link #flush()} when it is not yet ended; each write to the shared stream holds its lock,
 * so lines of several instances never interleave within a line. One instance per writing thread.
 */
final class LinePrefix extends OutputStream {

    private final PrintStream target;
    private final String prefix;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    LinePrefix(PrintStream target, String prefix) {
        this.target = target;
        this.prefix = prefix;
    }

    @Override
    public void write(int b) {
        if (b == '\n') {
            emit();
        } else {
            line.write(b);
        }
    }

    @Override
    public void write(byte[] b, int off, int len) {
        for (int i = off; i < off + len; i++) {
            write(b[i]);
        }
    }

    /** Writes a line not yet ended, if any, as a whole line. */
    @Override
    public void flush() {
        if (line.size() > 0) {
            emit();
        }
    }

    private void emit() {
        String text = line.toString(StandardCharsets.UTF_8);
        line.reset();
        synchronized (target) {
            target.println(prefix + text);
            target.flush();
        }
    }
}
