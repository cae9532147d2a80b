package io.tsdbwriter.kafka.segment;

import io.tsdbwriter.config.RunConfig;

/**
 * Segment arithmetic of DESIGN §4. A segment is the half-open offset range {@code [k·S, (k+1)·S)} of one
 * partition; with parallelism P, SegmentConsumer {@code i} reads the segments {@code k ≡ i (mod P)} from the
 * segment holding the committed offset on. The first segment starts at the committed offset (it may be partial).
 *
 * <p>Immutable and thread-safe.
 *
 * @param segmentSize     S, offsets per segment, 1..{@value RunConfig#MAX_SEGMENT_SIZE}
 * @param parallelism     P, SegmentConsumers per partition (≥ 1)
 * @param committedOffset where consumption starts (the group's committed offset, or the log start) (≥ 0)
 */
public record SegmentPlan(long segmentSize, int parallelism, long committedOffset) {

    /** @throws IllegalArgumentException when a parameter is out of range */
    public SegmentPlan {
        if (segmentSize < 1 || segmentSize > RunConfig.MAX_SEGMENT_SIZE) {
            throw new IllegalArgumentException(
                    "--segment-size must be in 1.." + RunConfig.MAX_SEGMENT_SIZE + ", got " + segmentSize);
        }
        if (parallelism < 1) {
            throw new IllegalArgumentException("parallelism must be >= 1, got " + parallelism);
        }
        if (committedOffset < 0) {
            throw new IllegalArgumentException("committed offset must be >= 0, got " + committedOffset);
        }
    }

    /** Index of the segment holding {@code offset}. */
    public long segmentOf(long offset) {
        return offset / segmentSize;
    }

    /**
     * Index of the first segment SegmentConsumer {@code consumer} reads: the smallest k ≥ segmentOf(committed) with k
     * ≡ consumer (mod P).
     */
    public long firstSegment(int consumer) {
        if (consumer < 0 || consumer >= parallelism) {
            throw new IllegalArgumentException("consumer index " + consumer + " outside 0.." + (parallelism - 1));
        }
        long k0 = segmentOf(committedOffset);
        long r = Math.floorMod(k0, (long) parallelism);
        long delta = Math.floorMod(consumer - r, (long) parallelism);
        return k0 + delta;
    }

    /** The segment after {@code k} for the same consumer: {@code k + P}. */
    public long nextSegment(long k) {
        return k + parallelism;
    }

    /** First offset to read in segment k: {@code max(k·S, committedOffset)}. */
    public long start(long k) {
        return Math.max(k * segmentSize, committedOffset);
    }

    /** Exclusive end offset of segment k: {@code (k+1)·S}. */
    public long end(long k) {
        return (k + 1) * segmentSize;
    }

    /**
     * Whether segment k has been read: the consumer's position is at or past its end. Positions can jump over
     * offsets that hold no record (transaction markers, compaction), so this never waits for offset end − 1.
     *
     * @param stopOffset with {@code --stop-at-end}, the end offset seen at start (reading stops there); otherwise
     *                   {@link Long#MAX_VALUE}
     */
    public boolean isRead(long k, long position, long stopOffset) {
        return position >= Math.min(end(k), stopOffset);
    }
}
