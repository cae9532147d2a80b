package io.tsdbwriter.decode.otlp;

import io.tsdbwriter.decode.PointHistograms;
import java.util.Arrays;

/**
 * One side of a native histogram's buckets as Prometheus writes them: spans ({@code BucketSpan}: offset, length) and
 * integer count deltas, built from buckets given in ascending index order. The first bucket given starts the first span
 * at its index; a gap of at most two indices to the next bucket stays inside the span as empty buckets (deltas to 0),
 * a longer gap starts a new span whose offset is the gap (client_golang's rule, which Prometheus' OTLP translator
 * copies). Each delta is the bucket's count minus the one before it (0 before the first).
 *
 * <p>Allocates nothing once its arrays have grown. Not thread-safe: one per converter ({@link NativeExponential},
 * {@link NativeCustomBuckets}, the exposition decoder's classic histograms).
 */
public final class NativeSpans {

    private int[] spans = new int[16]; // offset, length
    private int spanN;
    private long[] deltas = new long[64];
    private int deltaN;
    private long previous;
    private int lastIndex;

    /** Forgets the buckets given so far. */
    public void clear() {
        spanN = 0;
        deltaN = 0;
        previous = 0;
    }

    /** Whether no bucket was given since {@link #clear}. */
    public boolean isEmpty() {
        return spanN == 0;
    }

    /** Bucket {@code index} holds {@code count}: a new span or deltas in the last one; indices ascending. */
    public void bucket(int index, long count) {
        if (spanN == 0) {
            span(index);
        } else {
            int gap = index - lastIndex - 1;
            if (gap > 2) {
                span(gap);
            } else {
                for (int j = 0; j < gap; j++) {
                    delta(0);
                }
            }
        }
        delta(count);
        lastIndex = index;
    }

    /** Writes the spans as {@code spansField} entries and the deltas as packed {@code deltasField}. */
    public void put(PointHistograms out, int spansField, int deltasField) {
        for (int k = 0; k < spanN; k++) {
            out.putSpan(spansField, spans[k * 2], spans[k * 2 + 1]);
        }
        out.putPackedSint64(deltasField, deltas, deltaN);
    }

    private void span(int offset) {
        if ((spanN + 1) * 2 > spans.length) {
            spans = Arrays.copyOf(spans, spans.length * 2);
        }
        spans[spanN * 2] = offset;
        spans[spanN * 2 + 1] = 0;
        spanN++;
    }

    private void delta(long count) {
        if (deltaN == deltas.length) {
            deltas = Arrays.copyOf(deltas, deltaN * 2);
        }
        deltas[deltaN++] = count - previous;
        previous = count;
        spans[spanN * 2 - 1]++;
    }

    /** The spans: offset and length of span k at {@code [2k, 2k + 1]} (a copy). */
    int[] spans() {
        return Arrays.copyOf(spans, spanN * 2);
    }

    /** The deltas (a copy). */
    long[] deltas() {
        return Arrays.copyOf(deltas, deltaN);
    }
}
