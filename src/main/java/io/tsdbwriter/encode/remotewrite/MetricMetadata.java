package io.tsdbwriter.encode.remotewrite;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.WireFormat;
import io.tsdbwriter.decode.FamilyMetadata;
import io.tsdbwriter.wire.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Objects;

/**
 * One metric family's metadata (TYPE, HELP, UNIT) and its remote write entries, built once per family, never per
 * sample (design §6 "Metadata and exemplars").
 * <ul>
 *   <li>Remote write 1.0 (https://prometheus.io/docs/specs/remote_write_spec/; Prometheus' {@code prompb/types.proto}):
 *       one {@code WriteRequest.metadata} entry (field 3) per family present in a request,
 *       <pre>message MetricMetadata { MetricType type = 1; string metric_family_name = 2; string help = 4; string unit = 5; }</pre>
 *       ({@link #v1Entry}, a complete field-3 entry: tag, length, message; empty strings are left out as proto3
 *       does).</li>
 *   <li>Remote write 2.0 (https://prometheus.io/docs/specs/remote_write_spec_2_0/, "Metadata"; {@code
 *       io/prometheus/write/v2/types.proto}): per series {@code TimeSeries.metadata} (field 5),
 *       <pre>message Metadata { MetricType type = 1; uint32 help_ref = 3; uint32 unit_ref = 4; }</pre>
 *       whose references point into the request's symbol table ({@link #putV2Entry}; the caller owns the table).</li>
 * </ul>
 * The type numbers are the same in both versions ({@link Type#wire}).
 *
 * <p>Immutable and thread-safe; the constructor encodes the 1.0 entry once.
 */
public final class MetricMetadata {

    /** The metric types of both specifications; {@link #wire} is the enum number on the wire. */
    public enum Type {
        /** 1.0 {@code UNKNOWN}, 2.0 {@code METRIC_TYPE_UNSPECIFIED}; also Prometheus text's {@code untyped}. */
        UNKNOWN(0),
        COUNTER(1),
        GAUGE(2),
        HISTOGRAM(3),
        GAUGE_HISTOGRAM(4),
        SUMMARY(5),
        INFO(6),
        STATESET(7);

        private final int wire;

        Type(int wire) {
            this.wire = wire;
        }

        /** @return the enum number both protobuf schemas give this type */
        public int wire() {
            return wire;
        }

        /**
         * The type a {@code # TYPE} line names (Prometheus text 0.0.4 and OpenMetrics 1.0 spellings, any case):
         * {@code counter}, {@code gauge}, {@code histogram}, {@code gaugehistogram}, {@code summary}, {@code info},
         * {@code stateset}; {@code untyped}, {@code unknown} and anything else are {@link #UNKNOWN}.
         */
        public static Type ofExposition(String token) {
            return switch (token.toLowerCase(Locale.ROOT)) {
                case "counter" -> COUNTER;
                case "gauge" -> GAUGE;
                case "histogram" -> HISTOGRAM;
                case "gaugehistogram" -> GAUGE_HISTOGRAM;
                case "summary" -> SUMMARY;
                case "info" -> INFO;
                case "stateset" -> STATESET;
                default -> UNKNOWN;
            };
        }
    }

    static final int V1_WRITE_REQUEST_METADATA = 3;
    static final int V1_TYPE = 1;
    static final int V1_FAMILY_NAME = 2;
    static final int V1_HELP = 4;
    static final int V1_UNIT = 5;
    static final int V2_TIMESERIES_METADATA = 5;
    static final int V2_TYPE = 1;
    static final int V2_HELP_REF = 3;
    static final int V2_UNIT_REF = 4;

    private final Type type;
    private final String family;
    private final String help;
    private final String unit;
    private final byte[] v1Entry;

    /**
     * @param type   the family's type, never null
     * @param family the metric family name (for a histogram its base name, without {@code _bucket}), never null
     * @param help   the HELP text, "" when none
     * @param unit   the UNIT, "" when none
     * @throws NullPointerException when any argument is null
     */
    public MetricMetadata(Type type, String family, String help, String unit) {
        this.type = Objects.requireNonNull(type, "type");
        this.family = Objects.requireNonNull(family, "family");
        this.help = Objects.requireNonNull(help, "help");
        this.unit = Objects.requireNonNull(unit, "unit");
        this.v1Entry = encodeV1();
    }

    /**
     * Family {@code k} of a record's {@link FamilyMetadata} (its {@code # TYPE}, {@code # HELP}, {@code # UNIT}); called
     * once per series on its cache miss, never per sample.
     */
    public static MetricMetadata of(FamilyMetadata families, int k) {
        byte[] b = families.bytes();
        return new MetricMetadata(
                Type.ofExposition(
                        new String(b, families.typeOffset(k), families.typeLength(k), StandardCharsets.UTF_8)),
                new String(b, families.nameOffset(k), families.nameLength(k), StandardCharsets.UTF_8),
                new String(b, families.helpOffset(k), families.helpLength(k), StandardCharsets.UTF_8),
                new String(b, families.unitOffset(k), families.unitLength(k), StandardCharsets.UTF_8));
    }

    public Type type() {
        return type;
    }

    public String family() {
        return family;
    }

    public String help() {
        return help;
    }

    public String unit() {
        return unit;
    }

    /** Equal when type, family, help and unit are. */
    @Override
    public boolean equals(Object o) {
        return o instanceof MetricMetadata m
                && type == m.type
                && family.equals(m.family)
                && help.equals(m.help)
                && unit.equals(m.unit);
    }

    @Override
    public int hashCode() {
        return Objects.hash(type, family, help, unit);
    }

    /** The 1.0 entry's size in bytes (tag, length, message). */
    public int v1Size() {
        return v1Entry.length;
    }

    /** A copy of the 1.0 {@code WriteRequest.metadata} entry (tag, length, {@code MetricMetadata}). */
    public byte[] v1Entry() {
        return v1Entry.clone();
    }

    /** Appends the 1.0 entry to {@code out} (a body of {@code TimeSeries} entries stays a valid {@code WriteRequest}). */
    public void appendV1(ByteBuf out) {
        byte[] a = out.reserve(v1Entry.length);
        System.arraycopy(v1Entry, 0, a, out.length(), v1Entry.length);
        out.advance(v1Entry.length);
    }

    /** Writes the 1.0 entry at {@code a[w]} (room checked by the caller, {@link #v1Size}); returns the next index. */
    int putV1(byte[] a, int w) {
        System.arraycopy(v1Entry, 0, a, w, v1Entry.length);
        return w + v1Entry.length;
    }

    private byte[] encodeV1() {
        byte[] f = family.getBytes(StandardCharsets.UTF_8);
        byte[] h = help.getBytes(StandardCharsets.UTF_8);
        byte[] u = unit.getBytes(StandardCharsets.UTF_8);
        int inner = (type.wire == 0 ? 0 : 1 + CodedOutputStream.computeUInt32SizeNoTag(type.wire))
                + stringSize(f)
                + stringSize(h)
                + stringSize(u);
        byte[] a = new byte[1 + CodedOutputStream.computeUInt32SizeNoTag(inner) + inner];
        int w = 0;
        a[w++] = (byte) (V1_WRITE_REQUEST_METADATA << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED);
        w = RemoteWriteEncoder.putVarint(a, w, inner);
        if (type.wire != 0) {
            a[w++] = (byte) (V1_TYPE << 3 | WireFormat.WIRETYPE_VARINT);
            w = RemoteWriteEncoder.putVarint(a, w, type.wire);
        }
        w = putString(a, w, V1_FAMILY_NAME, f);
        w = putString(a, w, V1_HELP, h);
        putString(a, w, V1_UNIT, u);
        return a;
    }

    /**
     * Appends the 2.0 {@code TimeSeries.metadata} entry (tag, length, {@code Metadata}) for this family.
     *
     * @param helpRef the symbol-table index of {@link #help} (0, the empty string, when there is none)
     * @param unitRef the symbol-table index of {@link #unit} (0 when there is none)
     */
    public void putV2Entry(int helpRef, int unitRef, ByteBuf out) {
        int inner = (type.wire == 0 ? 0 : 1 + CodedOutputStream.computeUInt32SizeNoTag(type.wire))
                + (helpRef == 0 ? 0 : 1 + CodedOutputStream.computeUInt32SizeNoTag(helpRef))
                + (unitRef == 0 ? 0 : 1 + CodedOutputStream.computeUInt32SizeNoTag(unitRef));
        byte[] a = out.reserve(1 + CodedOutputStream.computeUInt32SizeNoTag(inner) + inner);
        int w = out.length();
        a[w++] = (byte) (V2_TIMESERIES_METADATA << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED);
        w = RemoteWriteEncoder.putVarint(a, w, inner);
        w = putUInt(a, w, V2_TYPE, type.wire);
        w = putUInt(a, w, V2_HELP_REF, helpRef);
        w = putUInt(a, w, V2_UNIT_REF, unitRef);
        out.advance(w - out.length());
    }

    private static int putUInt(byte[] a, int w, int field, int v) {
        if (v == 0) {
            return w; // proto3: a default value is not written
        }
        a[w++] = (byte) (field << 3 | WireFormat.WIRETYPE_VARINT);
        return RemoteWriteEncoder.putVarint(a, w, v);
    }

    private static int stringSize(byte[] s) {
        return s.length == 0 ? 0 : 1 + CodedOutputStream.computeUInt32SizeNoTag(s.length) + s.length;
    }

    private static int putString(byte[] a, int w, int field, byte[] s) {
        if (s.length == 0) {
            return w;
        }
        a[w++] = (byte) (field << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED);
        w = RemoteWriteEncoder.putVarint(a, w, s.length);
        System.arraycopy(s, 0, a, w, s.length);
        return w + s.length;
    }
}
