package io.tsdbwriter.it.support;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.xerial.snappy.Snappy;

/**
 * Test-side reader of Prometheus Remote-Write 1.0 bodies: snappy block → protobuf {@code WriteRequest} →
 * time series (labels in wire order, samples in wire order), by protobuf-java's {@link CodedInputStream}.
 * Independent of the writer's encoder (it parses, the encoder writes). Stateless; thread-safe.
 */
public final class RemoteWriteBodies {

    /** One {@code Label}. */
    public record Label(String name, String value) {}

    /** One {@code Sample}. */
    public record Sample(double value, long timestampMs) {}

    /** One {@code TimeSeries}. */
    public record Series(List<Label> labels, List<Sample> samples) {
        /** The value of label {@code name}, or null. */
        public String label(String name) {
            return labels.stream()
                    .filter(l -> l.name().equals(name))
                    .map(Label::value)
                    .findFirst()
                    .orElse(null);
        }
    }

    private RemoteWriteBodies() {}

    /** Decodes a snappy-compressed {@code WriteRequest}. */
    public static List<Series> decodeSnappy(byte[] body) throws IOException {
        return decode(Snappy.uncompress(body));
    }

    /** Decodes an uncompressed {@code WriteRequest}. */
    public static List<Series> decode(byte[] request) throws IOException {
        CodedInputStream in = CodedInputStream.newInstance(request);
        List<Series> out = new ArrayList<>();
        int tag;
        while ((tag = in.readTag()) != 0) {
            if (WireFormat.getTagFieldNumber(tag) == 1
                    && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
                int limit = in.pushLimit(in.readRawVarint32());
                out.add(readSeries(in));
                in.popLimit(limit);
            } else {
                in.skipField(tag);
            }
        }
        return out;
    }

    private static Series readSeries(CodedInputStream in) throws IOException {
        List<Label> labels = new ArrayList<>();
        List<Sample> samples = new ArrayList<>();
        int tag;
        while ((tag = in.readTag()) != 0) {
            int field = WireFormat.getTagFieldNumber(tag);
            if (field == 1 || field == 2) {
                int limit = in.pushLimit(in.readRawVarint32());
                if (field == 1) {
                    String name = "";
                    String value = "";
                    int t;
                    while ((t = in.readTag()) != 0) {
                        switch (WireFormat.getTagFieldNumber(t)) {
                            case 1 -> name = in.readStringRequireUtf8();
                            case 2 -> value = in.readStringRequireUtf8();
                            default -> in.skipField(t);
                        }
                    }
                    labels.add(new Label(name, value));
                } else {
                    double value = 0;
                    long ts = 0;
                    int t;
                    while ((t = in.readTag()) != 0) {
                        switch (WireFormat.getTagFieldNumber(t)) {
                            case 1 -> value = in.readDouble();
                            case 2 -> ts = in.readInt64();
                            default -> in.skipField(t);
                        }
                    }
                    samples.add(new Sample(value, ts));
                }
                in.popLimit(limit);
            } else {
                in.skipField(tag);
            }
        }
        return new Series(labels, samples);
    }

    /** A decoded Remote-Write 2.0 {@code io.prometheus.write.v2.Request}: its symbol table and its series, labels resolved. */
    public record V2Request(List<String> symbols, List<Series> series) {}

    /**
     * Decodes an uncompressed Remote-Write 2.0 {@code Request} ({@code symbols} = 4, {@code timeseries} = 5; a series'
     * {@code labels_refs} = 1, packed or not, resolved against the symbols; {@code samples} = 2 as in 1.0).
     *
     * @throws IOException also when a reference is outside the table or the table does not start with ""
     */
    public static V2Request decodeV2(byte[] request) throws IOException {
        V2Raw v2 = V2Raw.parse(request);
        List<String> symbols = v2.symbols();
        List<byte[]> rawSeries = v2.series();
        int tag;
        if (!rawSeries.isEmpty() && (symbols.isEmpty() || !symbols.get(0).isEmpty())) {
            throw new IOException(
                    "symbols[0] must be the empty string, got " + (symbols.isEmpty() ? "no table" : symbols.get(0)));
        }
        List<Series> series = new ArrayList<>();
        for (byte[] raw : rawSeries) {
            CodedInputStream ts = CodedInputStream.newInstance(raw);
            List<Integer> refs = new ArrayList<>();
            List<Sample> samples = new ArrayList<>();
            while ((tag = ts.readTag()) != 0) {
                int field = WireFormat.getTagFieldNumber(tag);
                if (field == 1 && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
                    int limit = ts.pushLimit(ts.readRawVarint32());
                    while (!ts.isAtEnd()) {
                        refs.add(ts.readUInt32());
                    }
                    ts.popLimit(limit);
                } else if (field == 1) {
                    refs.add(ts.readUInt32());
                } else if (field == 2) {
                    int limit = ts.pushLimit(ts.readRawVarint32());
                    double value = 0;
                    long t = 0;
                    int st;
                    while ((st = ts.readTag()) != 0) {
                        switch (WireFormat.getTagFieldNumber(st)) {
                            case 1 -> value = ts.readDouble();
                            case 2 -> t = ts.readInt64();
                            default -> ts.skipField(st);
                        }
                    }
                    samples.add(new Sample(value, t));
                    ts.popLimit(limit);
                } else {
                    ts.skipField(tag);
                }
            }
            if (refs.size() % 2 != 0) {
                throw new IOException("odd number of label references: " + refs.size());
            }
            List<Label> labels = new ArrayList<>();
            for (int i = 0; i < refs.size(); i += 2) {
                if (refs.get(i) >= symbols.size() || refs.get(i + 1) >= symbols.size()) {
                    throw new IOException("label reference outside the symbol table of " + symbols.size());
                }
                labels.add(new Label(symbols.get(refs.get(i)), symbols.get(refs.get(i + 1))));
            }
            series.add(new Series(labels, samples));
        }
        return new V2Request(symbols, series);
    }

    /**
     * Per 1.0 {@code TimeSeries} of an uncompressed {@code WriteRequest}, in order: its {@code histograms} entries (field
     * 4), each the bytes of its {@code Histogram} message.
     */
    public static List<List<byte[]>> histogramsV1(byte[] request) throws IOException {
        CodedInputStream in = CodedInputStream.newInstance(request);
        List<List<byte[]>> out = new ArrayList<>();
        int tag;
        while ((tag = in.readTag()) != 0) {
            if (tag == (1 << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED)) {
                out.add(fieldEntries(in.readByteArray(), 4));
            } else {
                in.skipField(tag);
            }
        }
        return out;
    }

    /** Per 2.0 series of an uncompressed {@code Request}, in order: its {@code histograms} entries (field 3). */
    public static List<List<byte[]>> histogramsV2(byte[] request) throws IOException {
        List<List<byte[]>> out = new ArrayList<>();
        for (byte[] ts : V2Raw.parse(request).series()) {
            out.add(fieldEntries(ts, 3));
        }
        return out;
    }

    /** The length-delimited entries of field {@code field} of a message. */
    private static List<byte[]> fieldEntries(byte[] message, int field) throws IOException {
        CodedInputStream in = CodedInputStream.newInstance(message);
        List<byte[]> out = new ArrayList<>();
        int tag;
        while ((tag = in.readTag()) != 0) {
            if (tag == (field << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED)) {
                out.add(in.readByteArray());
            } else {
                in.skipField(tag);
            }
        }
        return out;
    }

    /** One 1.0 {@code WriteRequest.metadata} entry: type (enum number), family name, help, unit ("" when absent). */
    public record Metadata(long type, String family, String help, String unit) {}

    /** The {@code metadata} entries (field 3) of an uncompressed 1.0 {@code WriteRequest}, in body order. */
    public static List<Metadata> metadataV1(byte[] request) throws IOException {
        CodedInputStream in = CodedInputStream.newInstance(request);
        List<Metadata> out = new ArrayList<>();
        int tag;
        while ((tag = in.readTag()) != 0) {
            if (tag != (3 << 3 | WireFormat.WIRETYPE_LENGTH_DELIMITED)) {
                in.skipField(tag);
                continue;
            }
            CodedInputStream m = CodedInputStream.newInstance(in.readByteArray());
            long type = 0;
            String[] text = {"", "", "", "", "", ""};
            while ((tag = m.readTag()) != 0) {
                int field = WireFormat.getTagFieldNumber(tag);
                if (field == 1) {
                    type = m.readUInt64();
                } else if (field == 2 || field == 4 || field == 5) {
                    text[field] = m.readStringRequireUtf8();
                } else {
                    m.skipField(tag);
                }
            }
            out.add(new Metadata(type, text[2], text[4], text[5]));
        }
        return out;
    }

    /**
     * Per 2.0 series of an uncompressed {@code Request}, in order: its {@code metadata} (field 5) as
     * {@code "type|help|unit"}, the help and unit resolved through the symbols; {@code "-"} when it has none.
     */
    public static List<String> metadataV2(byte[] request) throws IOException {
        V2Raw v2 = V2Raw.parse(request);
        List<String> symbols = v2.symbols();
        List<byte[]> series = v2.series();
        int tag;
        List<String> got = new ArrayList<>();
        for (byte[] ts : series) {
            CodedInputStream s = CodedInputStream.newInstance(ts);
            String md = "-";
            while ((tag = s.readTag()) != 0) {
                if (tag != (5 << 3 | 2)) {
                    s.skipField(tag);
                    continue;
                }
                CodedInputStream m = CodedInputStream.newInstance(s.readByteArray());
                long[] f = new long[5];
                while ((tag = m.readTag()) != 0) {
                    int field = WireFormat.getTagFieldNumber(tag);
                    if (field < f.length && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_VARINT) {
                        f[field] = m.readUInt64();
                    } else {
                        m.skipField(tag);
                    }
                }
                md = f[1] + "|" + symbols.get((int) f[3]) + "|" + symbols.get((int) f[4]);
            }
            got.add(md);
        }
        return got;
    }

    /**
     * Per 1.0 {@code TimeSeries} of an uncompressed {@code WriteRequest}, in order: its {@code exemplars} (field 3), each
     * as {@code "name=value,…|value|timestamp"} (labels in wire order), joined by {@code ";"}; {@code ""} when none.
     */
    public static List<String> exemplarsV1(byte[] request) throws IOException {
        CodedInputStream in = CodedInputStream.newInstance(request);
        List<String> out = new ArrayList<>();
        int tag;
        while ((tag = in.readTag()) != 0) {
            if (tag != (1 << 3 | 2)) {
                in.skipField(tag);
                continue;
            }
            CodedInputStream ts = CodedInputStream.newInstance(in.readByteArray());
            List<String> got = new ArrayList<>();
            while ((tag = ts.readTag()) != 0) {
                if (tag != (3 << 3 | 2)) {
                    ts.skipField(tag);
                    continue;
                }
                CodedInputStream x = CodedInputStream.newInstance(ts.readByteArray());
                StringBuilder labels = new StringBuilder();
                double value = 0;
                long t = 0;
                while ((tag = x.readTag()) != 0) {
                    switch (WireFormat.getTagFieldNumber(tag)) {
                        case 1 -> {
                            CodedInputStream l = CodedInputStream.newInstance(x.readByteArray());
                            String[] nv = {"", ""};
                            while ((tag = l.readTag()) != 0) {
                                nv[WireFormat.getTagFieldNumber(tag) - 1] = l.readStringRequireUtf8();
                            }
                            labels.append(labels.isEmpty() ? "" : ",")
                                    .append(nv[0])
                                    .append('=')
                                    .append(nv[1]);
                        }
                        case 2 -> value = x.readDouble();
                        case 3 -> t = x.readInt64();
                        default -> x.skipField(tag);
                    }
                }
                got.add(labels + "|" + value + "|" + t);
            }
            out.add(String.join(";", got));
        }
        return out;
    }

    /** {@link #exemplarsV1} of a 2.0 {@code Request}: per series its {@code exemplars} (field 4), labels resolved through the symbols. */
    public static List<String> exemplarsV2(byte[] request) throws IOException {
        V2Raw v2 = V2Raw.parse(request);
        List<String> symbols = v2.symbols();
        List<byte[]> series = v2.series();
        int tag;
        List<String> out = new ArrayList<>();
        for (byte[] raw : series) {
            CodedInputStream ts = CodedInputStream.newInstance(raw);
            List<String> got = new ArrayList<>();
            while ((tag = ts.readTag()) != 0) {
                if (tag != (4 << 3 | 2)) {
                    ts.skipField(tag);
                    continue;
                }
                CodedInputStream x = CodedInputStream.newInstance(ts.readByteArray());
                StringBuilder labels = new StringBuilder();
                double value = 0;
                long t = 0;
                while ((tag = x.readTag()) != 0) {
                    switch (WireFormat.getTagFieldNumber(tag)) {
                        case 1 -> {
                            int limit = x.pushLimit(x.readRawVarint32());
                            while (!x.isAtEnd()) {
                                String name = symbols.get(x.readUInt32());
                                labels.append(labels.isEmpty() ? "" : ",")
                                        .append(name)
                                        .append('=')
                                        .append(symbols.get(x.readUInt32()));
                            }
                            x.popLimit(limit);
                        }
                        case 2 -> value = x.readDouble();
                        case 3 -> t = x.readInt64();
                        default -> x.skipField(tag);
                    }
                }
                got.add(labels + "|" + value + "|" + t);
            }
            out.add(String.join(";", got));
        }
        return out;
    }

    /**
     * A 2.0 {@code Request}'s symbols (field 4) and its {@code TimeSeries} (field 5) undecoded, in order ({@link
     * #decodeV2} resolves them).
     */
    private record V2Raw(List<String> symbols, List<byte[]> series) {
        static V2Raw parse(byte[] request) throws IOException {
            List<String> symbols = new ArrayList<>();
            List<byte[]> series = new ArrayList<>();
            CodedInputStream in = CodedInputStream.newInstance(request);
            int tag;
            while ((tag = in.readTag()) != 0) {
                switch (WireFormat.getTagFieldNumber(tag)) {
                    case 4 -> symbols.add(in.readStringRequireUtf8());
                    case 5 -> series.add(in.readByteArray());
                    default -> in.skipField(tag);
                }
            }
            return new V2Raw(symbols, series);
        }
    }
}
