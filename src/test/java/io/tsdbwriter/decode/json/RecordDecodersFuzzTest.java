package io.tsdbwriter.decode.json;

import com.code_intelligence.jazzer.junit.FuzzTest;
import com.sun.management.ThreadMXBean;
import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.TimestampWindow;
import io.tsdbwriter.decode.otlp.OtlpDecoder;
import io.tsdbwriter.decode.prometheus.ExpositionDecoder;
import io.tsdbwriter.decode.promremotewrite.RemoteWriteDecoder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.xerial.snappy.Snappy;

/**
 * Fuzzes every decoder entry point with Jazzer (issue 18): the bytes of one record must become decoded points or a
 * counted rejection ({@link DecodeError}) — any other exception, an accepted record without points, a rejection
 * that leaves points behind, an input decoded for more than 5 s (a hang ends the fork: surefire's
 * {@code forkedProcessTimeoutInSeconds}), or more than {@link #ALLOCATION_BUDGET} plus 64
 * bytes per input byte allocated for one decode, fails it. On top, differential: the fast path and Jackson alone
 * must give the same verdict and the same points for every input.
 *
 * <p>Seeds: {@code src/test/resources/io/tsdbwriter/decode/json/RecordDecodersFuzzTestInputs/} — real scrapes as records
 * and the malformed kinds of {@code DeliveryGuaranteesIT}. Without {@code JAZZER_FUZZ} (plain {@code mvn test} with
 * {@code -Dtest=...}) both methods only replay the seeds; the {@code fuzz} surefire execution fuzzes {@link #decoders}
 * for 30 s, {@code mvn -Pfuzz test} fuzzes {@link #decodersLong} for 15 minutes ({@code docs/testing.md}, {@code docs/fuzzing.md}).
 */
class RecordDecodersFuzzTest {

    /** As DeliveryGuaranteesIT's {@code --max-record-bytes 4KiB}: libFuzzer's default input length limit too. */
    static final int MAX_RECORD_BYTES = 4096;
    /** A decode slower than this (a hang in the making) fails; a real hang is ended by surefire's fork timeout. */
    static final long MAX_DECODE_NANOS = 5_000_000_000L;
    /** Allocation allowed for one decode beyond 64 bytes per input byte (after warm-up: class loading, arenas). */
    static final long ALLOCATION_BUDGET = 4 << 20;

    /** One decoder entry point: bytes of one record → points in {@code out} (null) or why the record is rejected. */
    @FunctionalInterface
    interface EntryPoint {
        DecodeError decode(byte[] value, DecodedPoints out);
    }

    /** Every decoder entry point, by name. A new decoder is one line here. */
    static final Map<String, Supplier<EntryPoint>> ENTRY_POINTS = new LinkedHashMap<>();

    static {
        ENTRY_POINTS.put("json", () -> new PointDecoder(MAX_RECORD_BYTES)::decode);
        ENTRY_POINTS.put("json-jackson-only", () -> new PointDecoder(MAX_RECORD_BYTES, false)::decode);
        ENTRY_POINTS.put("json-fast-scanner", () -> {
            FastPointScanner scanner = new FastPointScanner();
            return (value, out) -> {
                if (value == null || value.length == 0 || value.length > MAX_RECORD_BYTES) {
                    out.clear(); // PointDecoder checks these before the scanner runs
                    return value == null || value.length == 0 ? DecodeError.EMPTY_RECORD : DecodeError.TOO_LARGE;
                }
                if (scanner.decode(value, out)) {
                    return null;
                }
                out.clear(); // declined: PointDecoder hands it to Jackson (reported here as a rejection)
                return DecodeError.INVALID_JSON;
            };
        });
        // OTLP (issue 29): refusals per data point leave the record's other points, as the line formats' broken lines
        // do;
        // a record is "rejected" here when nothing of it is left
        ENTRY_POINTS.put("otlp", () -> {
            OtlpDecoder otlp = new OtlpDecoder(MAX_RECORD_BYTES, new TimestampWindow(0, Long.MAX_VALUE));
            Rejections rejections = new Rejections();
            return (value, out) -> {
                otlp.decode(value, 1_795_300_857_000L, out, rejections);
                return out.count() == 0 ? rejections.first() : null;
            };
        });
        // Prometheus text / OpenMetrics as remote write reads it with --convert-classic-histograms-to-nhcb: classic
        // histograms into native ones across lines (every other line as without the option); a refused line or
        // histogram leaves the record's other points, so a record is "rejected" here when nothing of it is left
        ENTRY_POINTS.put("prometheus-nhcb", () -> {
            ExpositionDecoder text = new ExpositionDecoder(MAX_RECORD_BYTES, new TimestampWindow(0, Long.MAX_VALUE));
            Rejections rejections = new Rejections(Rejections.NonFinite.KEEP);
            return (value, out) -> {
                out.histograms().accept(true);
                out.histograms().acceptClassicCustomBuckets(true);
                text.decode(value, 1_795_300_857_000L, out, rejections);
                return out.count() == 0 ? rejections.first() : null;
            };
        });
        // remote write 1.0 and 2.0: the input is the decompressed body (snappy-compressed here, so that the fuzzer
        // reaches the protobuf), native histograms passed through; a refused series leaves the record's others
        ENTRY_POINTS.put("promremotewrite", () -> {
            RemoteWriteDecoder rw = new RemoteWriteDecoder(MAX_RECORD_BYTES, new TimestampWindow(0, Long.MAX_VALUE));
            Rejections rejections = new Rejections(Rejections.NonFinite.KEEP);
            return (value, out) -> {
                out.histograms().accept(true);
                try {
                    rw.decode(Snappy.compress(value), 1_795_300_857_000L, out, rejections);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                return out.count() == 0 ? rejections.first() : null;
            };
        });
    }

    private static final Map<String, EntryPoint> DECODERS = new LinkedHashMap<>();
    private static final Map<String, DecodedPoints> OUTS = new LinkedHashMap<>();

    static {
        ENTRY_POINTS.forEach((name, make) -> {
            DECODERS.put(name, make.get());
            OUTS.put(name, new DecodedPoints());
        });
        // warm-up: the first decodes load classes and grow arenas, which is not what the allocation check is about
        String valid = "{\"metric\":\"node_cpu_seconds_total\",\"timestamp\":1795300857000,\"value\":1234.56,"
                + "\"dimensions\":{\"instanceNo\":\"node-0001\",\"cpu\":\"0\",\"mode\":\"idle\"},\"productKey\":\"node\"}";
        List<String> warm = List.of(
                valid,
                "[" + valid + "," + valid + "]",
                "{not json",
                "{\"metric\":\"m\\u0041\",\"timestamp\":1,\"value\":1}",
                "{\"metric\":\"m\",\"timestamp\":1795300857000,\"value\":1e400,\"x\":[{}]}",
                "[]",
                "7",
                "{\"a\":\"\\ud800\"}");
        for (int round = 0; round < 3; round++) {
            for (String w : warm) {
                DECODERS.forEach((name, d) -> d.decode(w.getBytes(StandardCharsets.UTF_8), OUTS.get(name)));
            }
        }
    }

    private static final ThreadMXBean THREADS = (ThreadMXBean) ManagementFactory.getThreadMXBean();

    @FuzzTest(maxDuration = "30s")
    void decoders(byte[] record) {
        check(record);
    }

    @FuzzTest(maxDuration = "15m")
    void decodersLong(byte[] record) {
        check(record);
    }

    static void check(byte[] record) {
        Map<String, DecodeError> verdicts = new LinkedHashMap<>();
        for (Map.Entry<String, EntryPoint> e : DECODERS.entrySet()) {
            DecodedPoints out = OUTS.get(e.getKey());
            long before = THREADS.getCurrentThreadAllocatedBytes();
            long t0 = System.nanoTime();
            DecodeError error = e.getValue().decode(record, out);
            long nanos = System.nanoTime() - t0;
            long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
            if (nanos > MAX_DECODE_NANOS) {
                throw new AssertionError(
                        e.getKey() + " took " + nanos / 1_000_000 + " ms for a " + record.length + "-byte record");
            }
            if (allocated > ALLOCATION_BUDGET + 64L * record.length) {
                // the first time a path runs, class loading and Jazzer's instrumentation allocate on this thread:
                // a blow-up is one that happens again
                before = THREADS.getCurrentThreadAllocatedBytes();
                error = e.getValue().decode(record, out);
                allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
            }
            if (allocated > ALLOCATION_BUDGET + 64L * record.length) {
                throw new AssertionError(
                        e.getKey() + " allocated " + allocated + " bytes for a " + record.length + "-byte record");
            }
            if (error == null && out.count() < 1) {
                throw new AssertionError(e.getKey() + " accepted a record without points: " + show(record));
            }
            if (error != null && out.count() != 0) {
                throw new AssertionError(
                        e.getKey() + " rejected a record (" + error + ") but left " + out.count() + " points");
            }
            if (error == null) {
                for (int p = 0; p < out.count(); p++) {
                    describe(out, p); // every accessor of every point answers
                }
            }
            verdicts.put(e.getKey(), error);
        }
        // differential: the fast path is an optimisation, never a different answer
        if (verdicts.get("json") != verdicts.get("json-jackson-only")) {
            throw new AssertionError("fast path says " + verdicts.get("json") + ", Jackson "
                    + verdicts.get("json-jackson-only") + " for " + show(record));
        }
        if (verdicts.get("json") == null) {
            assertSamePoints("json", "json-jackson-only", record);
        }
        if (verdicts.get("json-fast-scanner") == null) {
            if (verdicts.get("json-jackson-only") != null) {
                throw new AssertionError("fast scanner accepted what Jackson rejects ("
                        + verdicts.get("json-jackson-only") + "): " + show(record));
            }
            assertSamePoints("json-fast-scanner", "json-jackson-only", record);
        }
    }

    private static void assertSamePoints(String a, String b, byte[] record) {
        DecodedPoints x = OUTS.get(a);
        DecodedPoints y = OUTS.get(b);
        List<String> px = new ArrayList<>();
        List<String> py = new ArrayList<>();
        for (int p = 0; p < x.count(); p++) {
            px.add(describe(x, p));
        }
        for (int p = 0; p < y.count(); p++) {
            py.add(describe(y, p));
        }
        if (!Objects.equals(px, py)) {
            throw new AssertionError(a + " and " + b + " decode " + show(record) + " differently:\n" + px + "\n" + py);
        }
    }

    private static String describe(DecodedPoints out, int p) {
        StringBuilder s = new StringBuilder(out.metric(p))
                .append(' ')
                .append(out.timestampMs(p))
                .append(' ')
                .append(Double.doubleToRawLongBits(out.value(p)));
        for (int i = out.labelStart(p); i < out.labelEnd(p); i++) {
            s.append(' ').append(out.labelName(i)).append('=').append(out.labelValue(i));
        }
        int n = out.seriesKey(p);
        return s.append(" key=")
                .append(new String(out.seriesKeyBytes(), 0, n, StandardCharsets.ISO_8859_1))
                .toString();
    }

    private static String show(byte[] record) {
        String s = new String(record, StandardCharsets.UTF_8);
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }
}
