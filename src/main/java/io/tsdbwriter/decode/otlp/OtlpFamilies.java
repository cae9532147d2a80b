package io.tsdbwriter.decode.otlp;

import io.tsdbwriter.decode.FamilyMetadata;
import java.nio.charset.StandardCharsets;

/**
 * A {@code Metric}'s metadata ({@code metrics.proto}: {@code name} = 1, {@code description} = 2, {@code unit} = 3 and
 * which data field it holds) into the record's {@link FamilyMetadata}, the family named as the metric (the decoder
 * keeps OTLP names as they are): its type as Prometheus' OTLP translator gives it — {@code Gauge} a gauge, a
 * monotonic {@code Sum} a counter and any other {@code Sum} a gauge, {@code Histogram} and
 * {@code ExponentialHistogram} a histogram, {@code Summary} a summary; its HELP the description and its UNIT the unit,
 * both as written (no unit conversion: the names carry no unit suffix either). The series the decoder makes of it
 * ({@code <name>}, {@code <name>_count}, {@code _sum}, {@code _bucket}) find it by name or suffix
 * ({@link FamilyMetadata#find}). Read once per metric, not per data point.
 *
 * <p>Not thread-safe: one per {@link OtlpDecoder}.
 */
final class OtlpFamilies {

    private static final byte[] GAUGE = "gauge".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] COUNTER = "counter".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HISTOGRAM = "histogram".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SUMMARY = "summary".getBytes(StandardCharsets.US_ASCII);

    private final WireReader w;

    OtlpFamilies(WireReader wire) {
        this.w = wire;
    }

    /**
     * Declares the family of the {@code Metric} message {@code [s, e)} of the record being read, when it has a name.
     *
     * @param families the record's families
     */
    void declare(int s, int e, FamilyMetadata families) {
        WireReader w = this.w;
        int nameOff = -1;
        int nameLen = 0;
        int helpOff = 0;
        int helpLen = 0;
        int unitOff = 0;
        int unitLen = 0;
        byte[] type = null;
        for (int p = s; p < e; ) {
            p = w.varint(p, e);
            int tag = (int) w.v;
            int field = tag >>> 3;
            if ((tag & 7) != 2) {
                p = w.skip(p, e, tag);
                continue;
            }
            p = w.varint(p, e);
            int end = w.end(p, e);
            switch (field) {
                case 1 -> {
                    if (nameOff < 0) {
                        nameOff = p;
                        nameLen = end - p;
                    }
                }
                case 2 -> {
                    helpOff = p;
                    helpLen = end - p;
                }
                case 3 -> {
                    unitOff = p;
                    unitLen = end - p;
                }
                case 5 -> type = GAUGE;
                case 7 -> type = monotonic(p, end) ? COUNTER : GAUGE;
                case 9, 10 -> type = HISTOGRAM;
                case 11 -> type = SUMMARY;
                default -> {}
            }
            p = end;
        }
        if (nameOff < 0 || nameLen == 0) {
            return;
        }
        byte[] b = w.buf;
        int k = families.family(b, nameOff, nameLen);
        if (type != null) {
            families.setType(k, type, 0, type.length);
        }
        if (helpLen > 0) {
            w.utf8(helpOff, helpOff + helpLen, "metric description");
            families.setHelpText(k, b, helpOff, helpLen);
        }
        if (unitLen > 0) {
            w.utf8(unitOff, unitOff + unitLen, "metric unit");
            families.setUnit(k, b, unitOff, unitLen);
        }
    }

    /** Whether the {@code Sum} message {@code [s, e)} has {@code is_monotonic} (field 3) true. */
    private boolean monotonic(int s, int e) {
        boolean m = false;
        for (int p = s; p < e; ) {
            p = w.varint(p, e);
            int tag = (int) w.v;
            if (tag == (3 << 3)) {
                p = w.varint(p, e);
                m = w.v != 0;
            } else {
                p = w.skip(p, e, tag);
            }
        }
        return m;
    }
}
