package io.tsdbwriter.decode;

import com.google.protobuf.CodedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Test writer of uncompressed remote write bodies: the same series as a 1.0 {@code WriteRequest} (Prometheus
 * remote write 1.0 types.proto) or a 2.0 {@code io.prometheus.write.v2.Request} (Prometheus remote write 2.0
 * specification / types.proto, symbols table starting with {@code ""}). Histograms are {@code Histogram} messages as
 * bytes: both versions give them the same field numbers.
 */
public final class RemoteWriteBodyWriter {

    private RemoteWriteBodyWriter() {}

    /** One series: labels as (name, value) pairs, then its samples, histograms, exemplars and metadata. */
    public static final class Series {
        final String[] labels;
        final List<long[]> samples = new ArrayList<>(); // value bits, timestamp, start
        final List<byte[]> histograms = new ArrayList<>();
        final List<Object[]> exemplars = new ArrayList<>(); // value, timestamp, labels
        int type;
        String help = "";
        String unit = "";
        int[] refs;

        Series(String[] labels) {
            this.labels = labels;
        }

        public Series sample(double value, long timestampMs) {
            return sample(value, timestampMs, 0);
        }

        /** A sample with {@code start_timestamp} (2.0 field 3, written in 1.0 too where not 0, as the decoder reads it). */
        public Series sample(double value, long timestampMs, long startMs) {
            samples.add(new long[] {Double.doubleToRawLongBits(value), timestampMs, startMs});
            return this;
        }

        public Series histogram(byte[] message) {
            histograms.add(message);
            return this;
        }

        public Series exemplar(double value, long timestampMs, String... labelPairs) {
            exemplars.add(new Object[] {value, timestampMs, labelPairs});
            return this;
        }

        /** Metadata: 2.0's {@code MetricType} number (1 counter, 2 gauge, 3 histogram …), help and unit. */
        public Series metadata(int metricType, String helpText, String unitText) {
            type = metricType;
            help = helpText;
            unit = unitText;
            return this;
        }

        /** 2.0 only: these {@code labels_refs} instead of the labels' own (for malformed bodies). */
        public Series refs(int... labelsRefs) {
            refs = labelsRefs;
            return this;
        }
    }

    public static Series series(String... labels) {
        return new Series(labels);
    }

    /** A 1.0 {@code WriteRequest}: its metadata per series as top-level {@code MetricMetadata} (field 3). */
    public static byte[] v1(Series... series) {
        return message(out -> {
            for (Series s : series) {
                out.writeByteArray(1, message(t -> {
                    for (int i = 0; i < s.labels.length; i += 2) {
                        t.writeByteArray(1, label(s.labels[i], s.labels[i + 1]));
                    }
                    for (long[] sm : s.samples) {
                        t.writeByteArray(2, sample(sm));
                    }
                    for (Object[] e : s.exemplars) {
                        t.writeByteArray(3, message(x -> {
                            String[] l = (String[]) e[2];
                            for (int i = 0; i < l.length; i += 2) {
                                x.writeByteArray(1, label(l[i], l[i + 1]));
                            }
                            x.writeDouble(2, (Double) e[0]);
                            x.writeInt64(3, (Long) e[1]);
                        }));
                    }
                    for (byte[] h : s.histograms) {
                        t.writeByteArray(4, h);
                    }
                }));
            }
            for (Series s : series) {
                if (s.type != 0) {
                    out.writeByteArray(3, message(m -> {
                        m.writeEnum(1, s.type);
                        m.writeString(2, value(s.labels, "__name__"));
                        m.writeString(4, s.help);
                        m.writeString(5, s.unit);
                    }));
                }
            }
        });
    }

    /** A 2.0 {@code Request}: symbols (field 4) first, then the series (field 5). */
    public static byte[] v2(Series... series) {
        Map<String, Integer> symbols = new LinkedHashMap<>();
        symbols.put("", 0);
        List<byte[]> timeseries = new ArrayList<>();
        for (Series s : series) {
            timeseries.add(message(t -> {
                int[] refs = s.refs;
                if (refs == null) {
                    refs = new int[s.labels.length];
                    for (int i = 0; i < refs.length; i++) {
                        refs[i] = ref(symbols, s.labels[i]);
                    }
                }
                t.writeByteArray(1, packed(refs));
                for (long[] sm : s.samples) {
                    t.writeByteArray(2, sample(sm));
                }
                for (byte[] h : s.histograms) {
                    t.writeByteArray(3, h);
                }
                for (Object[] e : s.exemplars) {
                    String[] l = (String[]) e[2];
                    int[] er = new int[l.length];
                    for (int i = 0; i < l.length; i++) {
                        er[i] = ref(symbols, l[i]);
                    }
                    t.writeByteArray(4, message(x -> {
                        x.writeByteArray(1, packed(er));
                        x.writeDouble(2, (Double) e[0]);
                        x.writeInt64(3, (Long) e[1]);
                    }));
                }
                if (s.type != 0) {
                    int helpRef = ref(symbols, s.help);
                    int unitRef = ref(symbols, s.unit);
                    t.writeByteArray(5, message(m -> {
                        m.writeEnum(1, s.type);
                        m.writeUInt32(3, helpRef);
                        m.writeUInt32(4, unitRef);
                    }));
                }
            }));
        }
        return message(out -> {
            for (String symbol : symbols.keySet()) {
                out.writeString(4, symbol);
            }
            for (byte[] t : timeseries) {
                out.writeByteArray(5, t);
            }
        });
    }

    private static int ref(Map<String, Integer> symbols, String s) {
        return symbols.computeIfAbsent(s, k -> symbols.size());
    }

    private static String value(String[] labels, String name) {
        for (int i = 0; i < labels.length; i += 2) {
            if (labels[i].equals(name)) {
                return labels[i + 1];
            }
        }
        return "";
    }

    private static byte[] label(String name, String value) {
        return message(l -> {
            l.writeString(1, name);
            l.writeString(2, value);
        });
    }

    private static byte[] sample(long[] s) {
        return message(o -> {
            o.writeDouble(1, Double.longBitsToDouble(s[0]));
            o.writeInt64(2, s[1]);
            if (s[2] != 0) {
                o.writeInt64(3, s[2]);
            }
        });
    }

    private static byte[] packed(int[] refs) {
        return message(o -> {
            for (int r : refs) {
                o.writeUInt32NoTag(r);
            }
        });
    }

    /** A float histogram: count, sum, schema, zero threshold and count, positive spans and absolute counts, reset hint. */
    public static byte[] floatHistogram(
            double count, double sum, int schema, double zt, double zc, int[] spans, double[] counts, int resetHint) {
        return message(out -> {
            out.writeDouble(2, count);
            out.writeDouble(3, sum);
            out.writeSInt32(4, schema);
            out.writeDouble(5, zt);
            out.writeDouble(7, zc);
            spans(out, spans);
            out.writeByteArray(13, message(c -> {
                for (double d : counts) {
                    c.writeDoubleNoTag(d);
                }
            }));
            out.writeEnum(14, resetHint);
        });
    }

    /** A custom-bucket histogram (schema -53): count, sum, spans, deltas and the buckets' upper bounds (field 16). */
    public static byte[] customBucketHistogram(long count, double sum, int[] spans, long[] deltas, double[] bounds) {
        return message(out -> {
            out.writeUInt64(1, count);
            out.writeDouble(3, sum);
            out.writeSInt32(4, -53);
            spans(out, spans);
            out.writeByteArray(12, message(c -> {
                for (long d : deltas) {
                    c.writeSInt64NoTag(d);
                }
            }));
            out.writeByteArray(16, message(c -> {
                for (double b : bounds) {
                    c.writeDoubleNoTag(b);
                }
            }));
        });
    }

    /** {@code message} with {@code field} (varint) appended: a timestamp (15) or start timestamp (17). */
    public static byte[] with(byte[] message, int field, long value) {
        return message(out -> {
            out.writeRawBytes(message);
            out.writeInt64(field, value);
        });
    }

    private static void spans(CodedOutputStream out, int[] spans) throws IOException {
        for (int i = 0; i < spans.length; i += 2) {
            int offset = spans[i];
            int length = spans[i + 1];
            out.writeByteArray(11, message(s -> {
                s.writeSInt32(1, offset);
                s.writeUInt32(2, length);
            }));
        }
    }

    interface Body {
        void write(CodedOutputStream out) throws IOException;
    }

    static byte[] message(Body body) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            CodedOutputStream out = CodedOutputStream.newInstance(bytes);
            body.write(out);
            out.flush();
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
