package io.tsdbwriter.kafka;

import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.InputFormat;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.metrics.WriterMeters;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts malformed records by reason and logs them with topic/partition/offset, rate-limited per reason: the first
 * {@value #LOG_FIRST} of each reason, then one in every {@value #LOG_EVERY}. Thread-safe.
 */
public final class DecodeErrorLog {

    /** Records of a reason logged in full before rate limiting starts. */
    public static final int LOG_FIRST = 10;
    /** After that, one record in this many is logged. */
    public static final int LOG_EVERY = 1000;

    private static final Logger log = LoggerFactory.getLogger(DecodeErrorLog.class);

    private final WriterMeters meters;
    private final Map<DecodeError, AtomicLong> counts = new EnumMap<>(DecodeError.class);

    public DecodeErrorLog(WriterMeters meters) {
        this.meters = meters;
        for (DecodeError e : DecodeError.values()) {
            counts.put(e, new AtomicLong());
        }
    }

    /**
     * Counts what one record had refused, by format and reason, and logs it (rate-limited per reason) with its
     * topic/partition/offset and the first reason's detail.
     */
    public void rejected(String topic, int partition, long offset, InputFormat format, Rejections rejections) {
        for (DecodeError reason : Rejections.reasons()) {
            int c = rejections.count(reason);
            if (c == 0) {
                continue;
            }
            meters.decodeErrors(format.tag(), reason.tag(), c);
            long before = counts.get(reason).getAndAdd(c);
            long after = before + c;
            if (before < LOG_FIRST || after / LOG_EVERY != before / LOG_EVERY) {
                String detail = reason == rejections.first() ? rejections.firstDetail() : "";
                log.warn(
                        "malformed {} {}-{}@{}: {} x{} ({}) [{} so far with this reason]",
                        c == 1 && format.tag().equals("json") ? "record" : "in record",
                        topic,
                        partition,
                        offset,
                        reason.tag(),
                        c,
                        detail,
                        after);
            }
        }
    }

    /** Counts and (rate-limited) logs one malformed record. */
    public void rejected(String topic, int partition, long offset, DecodeError reason, String detail) {
        meters.decodeError(reason.tag());
        long n = counts.get(reason).incrementAndGet();
        if (n <= LOG_FIRST || n % LOG_EVERY == 0) {
            log.warn(
                    "malformed record {}-{}@{}: {} ({}) [{} so far with this reason]",
                    topic,
                    partition,
                    offset,
                    reason.tag(),
                    detail,
                    n);
        }
    }
}
