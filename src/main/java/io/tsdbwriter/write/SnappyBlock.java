package io.tsdbwriter.write;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.ConcurrentLinkedDeque;
import org.xerial.snappy.Snappy;

/**
 * Snappy block compression for remote write bodies (the Remote-Write 1.0 specification requires the raw block
 * format, not the framed/stream format) by snappy-java ({@code org.xerial.snappy}, the native library that
 * kafka-clients already brings): {@link Snappy#rawCompress(byte[], int, int, byte[], int)} into arrays kept in a
 * small pool and reused across requests, so a steady write path allocates no compression buffers.
 *
 * <p>Thread-safe.
 */
public final class SnappyBlock {

    private final ConcurrentLinkedDeque<byte[]> pool = new ConcurrentLinkedDeque<>();
    private final int maxPooled;

    /** @param maxPooled buffers kept for reuse at most (about the number of concurrent requests) */
    public SnappyBlock(int maxPooled) {
        this.maxPooled = Math.max(1, maxPooled);
    }

    /**
     * Compresses {@code in[0, length)} into a pooled array.
     *
     * @return the compressed bytes' array (valid in {@code [0, returned length)}, see {@link Compressed}); give it
     *     back with {@link #release} once the request is done
     */
    public Compressed compress(byte[] in, int length) {
        int max = Snappy.maxCompressedLength(length);
        byte[] out = pool.pollFirst();
        if (out == null || out.length < max) {
            out = new byte[Math.max(max, 64 * 1024)];
        }
        try {
            int n = Snappy.rawCompress(in, 0, length, out, 0);
            return new Compressed(out, n);
        } catch (IOException e) {
            throw new UncheckedIOException("snappy compression failed", e);
        }
    }

    /** Returns a buffer from {@link #compress} to the pool. */
    public void release(Compressed c) {
        if (c != null && pool.size() < maxPooled) {
            pool.offerFirst(c.array());
        }
    }

    /** Decompresses a snappy block (tests, fault proxies). */
    public static byte[] uncompress(byte[] block) throws IOException {
        return Snappy.uncompress(block);
    }

    /** Compressed bytes: {@code array[0, length)}. */
    public record Compressed(byte[] array, int length) {}
}
