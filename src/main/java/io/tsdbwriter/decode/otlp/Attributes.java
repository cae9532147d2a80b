package io.tsdbwriter.decode.otlp;

import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.DecodedPoints;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import java.util.Locale;

/**
 * Attributes flattened into labels, as VictoriaMetrics v1.150.0 maps them ({@code lib/protoparser/opentelemetry/pb},
 * default flags): the resource's {@code KeyValue}s as they are; the {@code InstrumentationScope} as {@code scope.name}
 * and {@code scope.version} ({@code unknown} when absent) and {@code scope.attributes.<key>}; a data point's attributes
 * as they are. Values ({@code AnyValue} of {@code opentelemetry/proto/common/v1/common.proto}): strings as they are,
 * booleans {@code true}/{@code false}, integers in decimal, doubles as {@link GoFormat#formatFloat}, bytes in base64,
 * arrays as JSON, a key-value list as {@code <key>.<subkey>} labels; a key-value without a key or value is skipped.
 *
 * <p>Labels are pushed on the {@link SampleWriter}'s stack as arena ranges: a string value is one arena copy, no
 * string object. Arrays, doubles and bytes are formatted as strings (not on the hot path of a Prometheus-shaped
 * scrape). Values nested deeper than {@link #MAX_ATTRIBUTE_DEPTH} refuse the record.
 *
 * <p>Not thread-safe: one per {@link OtlpDecoder}.
 */
final class Attributes {

    /** Deepest nesting of array and key-value list attribute values read (deeper: the record is refused, not the stack). */
    static final int MAX_ATTRIBUTE_DEPTH = 32;

    private final WireReader w;
    private final SampleWriter samples;
    /** Nesting of the attribute value being read. */
    private int depth;

    Attributes(WireReader wire, SampleWriter samples) {
        this.w = wire;
        this.samples = samples;
    }

    /** Starts a record. */
    void start() {
        depth = 0;
    }

    /** Pushes the {@code InstrumentationScope} message {@code [s, e)}: name, version, attributes. */
    void scope(int s, int e) {
        WireReader w = this.w;
        SampleWriter o = samples;
        DecodedPoints out = o.out;
        int nameOff = -1;
        int nameLen = 0;
        int versionOff = -1;
        int versionLen = 0;
        for (int p = s; p < e; ) {
            p = w.varint(p, e);
            int tag = (int) w.v;
            if (tag == (1 << 3 | 2) || tag == (2 << 3 | 2)) {
                p = w.varint(p, e);
                int end = w.end(p, e);
                w.utf8(p, end, "scope name/version");
                if (tag == (1 << 3 | 2)) {
                    nameOff = p;
                    nameLen = end - p;
                } else {
                    versionOff = p;
                    versionLen = end - p;
                }
                p = end;
            } else {
                p = w.skip(p, e, tag);
            }
        }
        int unknownLen = SampleWriter.length(SampleWriter.UNKNOWN);
        o.push(
                o.constant(SampleWriter.SCOPE_NAME),
                SampleWriter.length(SampleWriter.SCOPE_NAME),
                nameOff < 0 ? o.constant(SampleWriter.UNKNOWN) : out.copy(w.buf, nameOff, nameLen),
                nameOff < 0 ? unknownLen : nameLen);
        o.push(
                o.constant(SampleWriter.SCOPE_VERSION),
                SampleWriter.length(SampleWriter.SCOPE_VERSION),
                versionOff < 0 ? o.constant(SampleWriter.UNKNOWN) : out.copy(w.buf, versionOff, versionLen),
                versionOff < 0 ? unknownLen : versionLen);
        int prefix = o.constant(SampleWriter.SCOPE_ATTRIBUTES);
        attributes(s, e, 3, prefix, SampleWriter.length(SampleWriter.SCOPE_ATTRIBUTES));
    }

    /** Pushes every {@code KeyValue} of field {@code field} of the message {@code [s, e)}, names under an optional prefix. */
    void attributes(int s, int e, int field, int prefixOff, int prefixLen) {
        WireReader w = this.w;
        int want = field << 3 | 2;
        for (int p = s; (p = w.next(p, e, want)) >= 0; ) {
            int end = w.fieldEnd;
            keyValue(p, end, prefixOff, prefixLen);
            p = end;
        }
    }

    /** One data point attribute ({@code KeyValue}) whose length is read at {@code q}: pushed; returns the position after it. */
    int attribute(int q, int limit) {
        WireReader w = this.w;
        q = w.varint(q, limit);
        int end = w.end(q, limit);
        keyValue(q, end, -1, 0);
        return end;
    }

    private void keyValue(int s, int e, int prefixOff, int prefixLen) {
        WireReader w = this.w;
        int keyOff = -1;
        int keyLen = 0;
        int valueStart = -1;
        int valueEnd = -1;
        for (int p = s; p < e; ) {
            p = w.varint(p, e);
            int tag = (int) w.v;
            if (tag == (1 << 3 | 2) || tag == (2 << 3 | 2)) {
                p = w.varint(p, e);
                int end = w.end(p, e);
                if (tag == (1 << 3 | 2)) {
                    keyOff = p;
                    keyLen = end - p;
                } else {
                    valueStart = p;
                    valueEnd = end;
                }
                p = end;
            } else {
                p = w.skip(p, e, tag);
            }
        }
        if (keyOff < 0 || valueStart < 0) {
            return; // no key, or a null value: skipped, as VictoriaMetrics does
        }
        w.utf8(keyOff, keyOff + keyLen, "attribute key");
        DecodedPoints out = samples.out;
        int nameOff;
        int nameLen;
        if (prefixOff < 0) {
            nameOff = out.copy(w.buf, keyOff, keyLen);
            nameLen = keyLen;
        } else {
            byte[] a = out.arenaForWrite(prefixLen + 1 + keyLen);
            int at = out.arenaLength();
            System.arraycopy(a, prefixOff, a, at, prefixLen);
            a[at + prefixLen] = '.';
            System.arraycopy(w.buf, keyOff, a, at + prefixLen + 1, keyLen);
            nameLen = prefixLen + 1 + keyLen;
            nameOff = out.commitArena(nameLen);
        }
        anyValue(valueStart, valueEnd, nameOff, nameLen);
    }

    private void anyValue(int s, int e, int nameOff, int nameLen) {
        WireReader w = this.w;
        SampleWriter o = samples;
        for (int p = s; p < e; ) {
            p = w.varint(p, e);
            int tag = (int) w.v;
            switch (tag) {
                case 1 << 3 | 2 -> { // string string_value = 1
                    p = w.varint(p, e);
                    int end = w.end(p, e);
                    w.utf8(p, end, "attribute value");
                    o.push(nameOff, nameLen, o.out.copy(w.buf, p, end - p), end - p);
                    p = end;
                }
                case 2 << 3 -> { // bool bool_value = 2
                    p = w.varint(p, e);
                    int slot = w.v != 0 ? SampleWriter.TRUE : SampleWriter.FALSE;
                    o.push(nameOff, nameLen, o.constant(slot), SampleWriter.length(slot));
                }
                case 3 << 3 -> { // int64 int_value = 3
                    p = w.varint(p, e);
                    o.pushLong(nameOff, nameLen, w.v);
                }
                case 4 << 3 | 1 -> { // double double_value = 4
                    double d = Double.longBitsToDouble(w.fixed64(p, e));
                    p += 8;
                    o.pushText(nameOff, nameLen, GoFormat.formatFloat(d));
                }
                case 5 << 3 | 2 -> { // ArrayValue array_value = 5: JSON, as VictoriaMetrics encodes it
                    p = w.varint(p, e);
                    int end = w.end(p, e);
                    StringBuilder json = new StringBuilder();
                    nest();
                    arrayJson(p, end, json);
                    depth--;
                    o.pushText(nameOff, nameLen, json.toString());
                    p = end;
                }
                case 6 << 3 | 2 -> { // KeyValueList kvlist_value = 6: <key>.<subkey> labels
                    p = w.varint(p, e);
                    int end = w.end(p, e);
                    nest();
                    attributes(p, end, 1, nameOff, nameLen);
                    depth--;
                    p = end;
                }
                case 7 << 3 | 2 -> { // bytes bytes_value = 7: base64
                    p = w.varint(p, e);
                    int end = w.end(p, e);
                    o.pushText(nameOff, nameLen, Base64.getEncoder().encodeToString(Arrays.copyOfRange(w.buf, p, end)));
                    p = end;
                }
                default -> p = w.skip(p, e, tag);
            }
        }
    }

    private void nest() {
        if (++depth > MAX_ATTRIBUTE_DEPTH) {
            throw new WireReader.Malformed(
                    DecodeError.INVALID_DATA_POINT,
                    "an attribute value nested deeper than " + MAX_ATTRIBUTE_DEPTH + " levels");
        }
    }

    // ------------------------------------------------------------------ array values as JSON

    /** JSON of an {@code ArrayValue} (strings quoted, numbers and booleans bare, lists nested, key-value lists as objects). */
    private void arrayJson(int s, int e, StringBuilder json) {
        WireReader w = this.w;
        json.append('[');
        boolean first = true;
        for (int p = s; (p = w.next(p, e, 1 << 3 | 2)) >= 0; ) {
            int end = w.fieldEnd;
            if (!first) {
                json.append(',');
            }
            first = false;
            anyValueJson(p, end, json);
            p = end;
        }
        json.append(']');
    }

    private void anyValueJson(int s, int e, StringBuilder json) {
        WireReader w = this.w;
        int before = json.length();
        for (int p = s; p < e; ) {
            p = w.varint(p, e);
            int tag = (int) w.v;
            json.setLength(before);
            switch (tag) {
                case 1 << 3 | 2 -> {
                    p = w.varint(p, e);
                    int end = w.end(p, e);
                    w.utf8(p, end, "attribute value");
                    quote(new String(w.buf, p, end - p, StandardCharsets.UTF_8), json);
                    p = end;
                }
                case 2 << 3 -> {
                    p = w.varint(p, e);
                    json.append(w.v != 0);
                }
                case 3 << 3 -> {
                    p = w.varint(p, e);
                    json.append(w.v);
                }
                case 4 << 3 | 1 -> {
                    json.append(GoFormat.formatFloat(Double.longBitsToDouble(w.fixed64(p, e))));
                    p += 8;
                }
                case 5 << 3 | 2 -> {
                    p = w.varint(p, e);
                    int end = w.end(p, e);
                    nest();
                    arrayJson(p, end, json);
                    depth--;
                    p = end;
                }
                case 6 << 3 | 2 -> {
                    p = w.varint(p, e);
                    int end = w.end(p, e);
                    nest();
                    keyValueListJson(p, end, json);
                    depth--;
                    p = end;
                }
                case 7 << 3 | 2 -> {
                    p = w.varint(p, e);
                    int end = w.end(p, e);
                    quote(Base64.getEncoder().encodeToString(Arrays.copyOfRange(w.buf, p, end)), json);
                    p = end;
                }
                default -> p = w.skip(p, e, tag);
            }
        }
        if (json.length() == before) {
            json.append("null");
        }
    }

    /** JSON object of a {@code KeyValueList} {@code [s, e)} (a key-value without a value as {@code null}). */
    private void keyValueListJson(int s, int e, StringBuilder json) {
        WireReader w = this.w;
        json.append('{');
        boolean first = true;
        for (int q = s; (q = w.next(q, e, 1 << 3 | 2)) >= 0; ) {
            int ke = w.fieldEnd;
            String key = "";
            int valueStart = -1;
            int valueEnd = -1;
            for (int r = q; r < ke; ) {
                r = w.varint(r, ke);
                int rt = (int) w.v;
                if (rt == (1 << 3 | 2) || rt == (2 << 3 | 2)) {
                    r = w.varint(r, ke);
                    int re = w.end(r, ke);
                    if (rt == (1 << 3 | 2)) {
                        w.utf8(r, re, "attribute key");
                        key = new String(w.buf, r, re - r, StandardCharsets.UTF_8);
                    } else {
                        valueStart = r;
                        valueEnd = re;
                    }
                    r = re;
                } else {
                    r = w.skip(r, ke, rt);
                }
            }
            if (!first) {
                json.append(',');
            }
            first = false;
            quote(key, json);
            json.append(':');
            if (valueStart < 0) {
                json.append("null");
            } else {
                anyValueJson(valueStart, valueEnd, json);
            }
            q = ke;
        }
        json.append('}');
    }

    private static void quote(String s, StringBuilder json) {
        json.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                case '\n' -> json.append("\\n");
                case '\r' -> json.append("\\r");
                case '\t' -> json.append("\\t");
                default -> {
                    if (c < 0x20) {
                        json.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        json.append(c);
                    }
                }
            }
        }
        json.append('"');
    }
}
