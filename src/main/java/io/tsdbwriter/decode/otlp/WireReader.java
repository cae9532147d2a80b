package io.tsdbwriter.decode.otlp;

import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.Utf8;

/**
 * The protobuf wire format of one record, read in place (no message objects): varints, fixed64s and length-delimited
 * fields of the OTLP metrics messages ({@code opentelemetry/proto/metrics/v1/metrics.proto}), unknown fields skipped by
 * their wire type. Positions are offsets into the record's bytes; a message is a range {@code [s, e)}.
 *
 * <p>A read returns the position after what it read and leaves the value in a field ({@link #v} after
 * {@link #varint}, {@link #fieldEnd} after {@link #next}): the hot path allocates nothing. Bytes that are not a
 * well-formed message throw {@link Malformed} ({@link DecodeError#INVALID_PROTOBUF}; strings that are not UTF-8:
 * {@link DecodeError#INVALID_UTF8}), and {@link OtlpDecoder} rejects the record whole.
 *
 * <p>Not thread-safe: one per {@link OtlpDecoder}, holding the record being decoded.
 */
final class WireReader {

    /** The record being read (null between records). */
    byte[] buf;
    /** The varint last read by {@link #varint}. */
    long v;
    /** The end of the field {@link #next} found. */
    int fieldEnd;

    /**
     * The start of the next length-delimited field with {@code tag} in {@code [p, limit)}, other fields skipped; its end
     * in {@link #fieldEnd} (read it before the next call); -1 when there is none.
     */
    int next(int p, int limit, int tag) {
        while (p < limit) {
            p = varint(p, limit);
            int t = (int) v;
            if (t == tag) {
                p = varint(p, limit);
                fieldEnd = end(p, limit);
                return p;
            }
            p = skip(p, limit, t);
        }
        return -1;
    }

    /** Reads a varint at {@code p} (before {@code limit}) into {@link #v}; returns the position after it. */
    int varint(int p, int limit) {
        byte[] b = buf;
        long r = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (p >= limit) {
                throw new Malformed(DecodeError.INVALID_PROTOBUF, "truncated varint at byte " + p);
            }
            byte x = b[p++];
            r |= (long) (x & 0x7F) << shift;
            if (x >= 0) {
                v = r;
                return p;
            }
        }
        throw new Malformed(DecodeError.INVALID_PROTOBUF, "malformed varint at byte " + p);
    }

    /** The end of a length-delimited field whose length {@link #v} was just read at {@code p}. */
    int end(int p, int limit) {
        if (v < 0 || v > limit - p) {
            throw new Malformed(
                    DecodeError.INVALID_PROTOBUF, "a field of " + v + " bytes runs past its message at byte " + p);
        }
        return p + (int) v;
    }

    long fixed64(int p, int limit) {
        if (limit - p < 8) {
            throw new Malformed(DecodeError.INVALID_PROTOBUF, "truncated fixed64 at byte " + p);
        }
        byte[] b = buf;
        return (b[p] & 0xFFL)
                | (b[p + 1] & 0xFFL) << 8
                | (b[p + 2] & 0xFFL) << 16
                | (b[p + 3] & 0xFFL) << 24
                | (b[p + 4] & 0xFFL) << 32
                | (b[p + 5] & 0xFFL) << 40
                | (b[p + 6] & 0xFFL) << 48
                | (b[p + 7] & 0xFFL) << 56;
    }

    /** Skips the value of a field with {@code tag} at {@code p}; returns the position after it. */
    int skip(int p, int limit, int tag) {
        switch (tag & 7) {
            case 0 -> {
                return varint(p, limit);
            }
            case 1 -> {
                if (limit - p < 8) {
                    throw new Malformed(DecodeError.INVALID_PROTOBUF, "truncated fixed64 at byte " + p);
                }
                return p + 8;
            }
            case 2 -> {
                p = varint(p, limit);
                return end(p, limit);
            }
            case 5 -> {
                if (limit - p < 4) {
                    throw new Malformed(DecodeError.INVALID_PROTOBUF, "truncated fixed32 at byte " + p);
                }
                return p + 4;
            }
            default ->
                throw new Malformed(
                        DecodeError.INVALID_PROTOBUF,
                        "wire type " + (tag & 7) + " (field " + (tag >>> 3) + ") is not one of OTLP's at byte " + p);
        }
    }

    /** Checks that {@code [s, e)} is UTF-8 ({@code what} names it in the refusal). */
    void utf8(int s, int e, String what) {
        if (!Utf8.isValid(buf, s, e)) {
            throw new Malformed(DecodeError.INVALID_UTF8, what + " is not UTF-8");
        }
    }

    /**
     * Aggregation temporality (field 2) of the Sum, Histogram or ExponentialHistogram message {@code [s, e)}; 0
     * (unspecified) when absent.
     */
    int temporality(int s, int e) {
        int t = 0;
        for (int p = s; p < e; ) {
            p = varint(p, e);
            int tag = (int) v;
            if (tag == (2 << 3)) {
                p = varint(p, e);
                t = (int) v;
            } else {
                p = skip(p, e, tag);
            }
        }
        return t;
    }

    /** The number of length-delimited fields 1 ({@code data_points}) of the message {@code [s, e)}. */
    int dataPoints(int s, int e) {
        int points = 0;
        for (int p = s; (p = next(p, e, 1 << 3 | 2)) >= 0; p = fieldEnd) {
            points++;
        }
        return points;
    }

    /** A record that is not a well-formed request: rejected whole. No stack trace (a malformed record is not a bug). */
    static final class Malformed extends RuntimeException {
        final DecodeError reason;

        Malformed(DecodeError reason, String message) {
            super(message, null, false, false);
            this.reason = reason;
        }
    }
}
