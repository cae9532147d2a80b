package io.tsdbwriter.sink.victoriametrics;

/**
 * The serialized JSON-line prefixes of one source series' N instance variants, built once per series by
 * {@link ImportLineEncoder#prepare} and reused every time the series recurs. Prefix {@code j} is
 * {@code {"metric":{"__name__":"…",<labels with instanceNo = variant j>},"values":[} in UTF-8.
 * Immutable after construction; safe to share.
 */
public final class SeriesLines {

    final byte[][] prefixes;

    SeriesLines(byte[][] prefixes) {
        this.prefixes = prefixes;
    }

    /** Number of instance variants (N). */
    public int variants() {
        return prefixes.length;
    }

    /** Bytes held, for cache sizing. */
    public long sizeBytes() {
        long n = 0;
        for (byte[] p : prefixes) {
            n += p.length;
        }
        return n;
    }
}
