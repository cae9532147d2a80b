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
    public record Label(String name, String value) {
    }

    /** One {@code Sample}. */
    public record Sample(double value, long timestampMs) {
    }

    /** One {@code TimeSeries}. */
    public record Series(List<Label> labels, List<Sample> samples) {
        /** The value of label {@code name}, or null. */
        public String label(String name) {
            return labels.stream().filter(l -> l.name().equals(name)).map(Label::value).findFirst().orElse(null);
        }
    }

    private RemoteWriteBodies() {
    }

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
            if (WireFormat.getTagFieldNumber(tag) == 1 && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
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
}
