package io.tsdbwriter.encode.vmimport;

import io.tsdbwriter.amplify.SeriesVariants;

/**
 * The serialized JSON-line prefixes of one source series' N instance variants, built once per series by
 * {@link ImportLineEncoder#prepare}: a view of {@code bytes} from {@code offset} in the layout of
 * {@link ImportLineEncoder#prepareLines}. Prefix {@code j} is
 * {@code {"metric":{"__name__":"…",<labels with instanceNo = variant j>},"values":[} in UTF-8. The hot path keeps
 * the bytes in the series cache's entry instead (no object per series); this view is for everything else.
 * Immutable after construction; safe to share.
 */
public final class SeriesLines {

    final byte[] bytes;
    final int offset;

    SeriesLines(byte[] bytes, int offset) {
        this.bytes = bytes;
        this.offset = offset;
    }

    /** Number of instance variants (N). */
    public int variants() {
        return SeriesVariants.count(bytes, offset);
    }

    /** Bytes held (the prefixes and their 4-byte lengths, and N), for cache sizing. */
    public long sizeBytes() {
        return bytes.length - offset;
    }
}
