package io.tsdbwriter.decode;

import static io.tsdbwriter.decode.RemoteWriteBodyWriter.customBucketHistogram;
import static io.tsdbwriter.decode.RemoteWriteBodyWriter.floatHistogram;
import static io.tsdbwriter.decode.RemoteWriteBodyWriter.series;
import static io.tsdbwriter.decode.RemoteWriteBodyWriter.v1;
import static io.tsdbwriter.decode.RemoteWriteBodyWriter.v2;
import static io.tsdbwriter.decode.RemoteWriteBodyWriter.with;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import com.github.luben.zstd.Zstd;
import io.tsdbwriter.decode.RemoteWriteBodyWriter.Series;
import io.tsdbwriter.decode.promremotewrite.RemoteWriteDecoder;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.xerial.snappy.Snappy;

/** Remote write 2.0 {@code Request} bodies read by {@link RemoteWriteDecoder}, told from 1.0 by their fields. */
class RemoteWrite2DecoderTest {

    private static final double STALE = Double.longBitsToDouble(0x7ff0000000000002L);
    private static final byte[] INTEGER =
            NativeHistogramMessage.integer(5, 2.5, 3, 1e-128, 1, new int[] {-2, 2}, new long[] {1, 2}, 2000);
    private static final byte[] FLOAT = RemoteWriteBodyWriter.with(
            floatHistogram(6.5, 3.25, 0, 1e-128, 0.5, new int[] {0, 3}, new double[] {1.5, 0, 4.5}, 3), 15, 3000);
    private static final byte[] CUSTOM = with(
            customBucketHistogram(6, 12, new int[] {0, 3}, new long[] {1, 1, 1}, new double[] {0.5, 1, 2.5}), 15, 4000);

    private final RemoteWriteDecoder d = new RemoteWriteDecoder(1 << 20, Decoded.ANY_TIME);

    /** Name, series, whether histograms are accepted, the points rendered with their start timestamps. */
    static Stream<Arguments> sameSeriesDecodeEqualFrom1And2() {
        return Stream.of(
                arguments(
                        "float samples, labels shared, empty value dropped",
                        new Series[] {
                            series("__name__", "up", "job", "node", "instance", "h:9100", "empty", "")
                                    .sample(1, 1000)
                                    .sample(0, 2000),
                            series("zone", "ä", "__name__", "temp", "job", "node")
                                    .sample(21.5, 3000)
                        },
                        false,
                        List.of(
                                "up{instance=\"h:9100\",job=\"node\"} 1.0 @1000 st 0",
                                "up{instance=\"h:9100\",job=\"node\"} 0.0 @2000 st 0",
                                "temp{job=\"node\",zone=\"ä\"} 21.5 @3000 st 0")),
                arguments(
                        "start timestamps: set, none, not earlier",
                        new Series[] {
                            series("__name__", "c_total")
                                    .sample(1, 1000, 500)
                                    .sample(2, 2000)
                                    .sample(3, 3000, 3000)
                        },
                        false,
                        List.of("c_total{} 1.0 @1000 st 500", "c_total{} 2.0 @2000 st 0", "c_total{} 3.0 @3000 st 0")),
                arguments(
                        "NaN and stale marker counted, a series without __name__ counted",
                        new Series[] {
                            series("__name__", "up")
                                    .sample(STALE, 1000)
                                    .sample(Double.NaN, 2000)
                                    .sample(1, 3000),
                            series("job", "x").sample(1, 1000)
                        },
                        false,
                        List.of("up{} 1.0 @3000 st 0", "MISSING_METRIC=1", "NON_FINITE_VALUE=2")),
                arguments(
                        "metadata and exemplars skipped",
                        new Series[] {
                            series("__name__", "req_total", "job", "api")
                                    .sample(7, 1000)
                                    .exemplar(1, 900, "trace_id", "abc")
                                    .metadata(1, "Requests.", "requests")
                        },
                        false,
                        List.of("req_total{job=\"api\"} 7.0 @1000 st 0")),
                arguments(
                        "integer, float and custom-bucket histograms pass through, start timestamp taken out",
                        new Series[] {
                            series("__name__", "lat", "job", "j").histogram(with(INTEGER, 17, 1500)),
                            series("__name__", "fl").histogram(FLOAT),
                            series("__name__", "nhcb").histogram(CUSTOM)
                        },
                        true,
                        List.of(
                                "lat{job=\"j\"} 0.0 @2000 st 1500 h "
                                        + hex(NativeHistogramMessage.integer(
                                                5, 2.5, 3, 1e-128, 1, new int[] {-2, 2}, new long[] {1, 2}, 0)),
                                "fl{} 0.0 @3000 st 0 h "
                                        + hex(floatHistogram(
                                                6.5,
                                                3.25,
                                                0,
                                                1e-128,
                                                0.5,
                                                new int[] {0, 3},
                                                new double[] {1.5, 0, 4.5},
                                                3)),
                                "nhcb{} 0.0 @4000 st 0 h "
                                        + hex(customBucketHistogram(
                                                6, 12, new int[] {0, 3}, new long[] {1, 1, 1}, new double[] {0.5, 1, 2.5
                                                })))),
                arguments(
                        "histograms as vmrange samples for the import API",
                        new Series[] {series("__name__", "lat").histogram(INTEGER)},
                        false,
                        List.of(
                                "lat_count{} 5.0 @2000 st 0",
                                "lat_sum{} 2.5 @2000 st 0",
                                "lat_bucket{vmrange=\"-1.000e-128...1.000e-128\"} 1.0 @2000 st 0",
                                "lat_bucket{vmrange=\"7.711e-01...8.409e-01\"} 1.0 @2000 st 0",
                                "lat_bucket{vmrange=\"8.409e-01...9.170e-01\"} 3.0 @2000 st 0")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void sameSeriesDecodeEqualFrom1And2(String name, Series[] series, boolean histograms, List<String> expected)
            throws IOException {
        List<String> fromV1 = decode(Snappy.compress(v1(series)), histograms);
        assertThat(fromV1).as("1.0").isEqualTo(expected);
        assertThat(decode(Snappy.compress(v2(series)), histograms))
                .as("2.0, snappy")
                .isEqualTo(expected);
        assertThat(decode(Zstd.compress(v2(series)), histograms))
                .as("2.0, zstd")
                .isEqualTo(expected);
    }

    /** Name, series of a 2.0 body (the first malformed), the points and counts. */
    static Stream<Arguments> aMalformedSeriesIsSkippedAndCountedTheOthersKept() {
        Series good = series("__name__", "up").sample(1, 1000);
        return Stream.of(
                arguments(
                        "odd labels_refs",
                        series("__name__", "x").sample(1, 1000).refs(1, 2, 1),
                        good,
                        List.of("up{} 1.0 @1000 st 0", "INVALID_PROTOBUF=1")),
                arguments(
                        "a ref outside the symbols table",
                        series("__name__", "x").sample(1, 1000).refs(1, 99),
                        good,
                        List.of("up{} 1.0 @1000 st 0", "INVALID_PROTOBUF=1")),
                arguments(
                        "a ref above 2^31",
                        series("__name__", "x").sample(1, 1000).refs(1, -5),
                        good,
                        List.of("up{} 1.0 @1000 st 0", "INVALID_PROTOBUF=1")),
                arguments(
                        "a sample and a histogram in one series",
                        series("__name__", "x").sample(1, 1000).histogram(INTEGER),
                        good,
                        List.of("up{} 1.0 @1000 st 0", "INVALID_PROTOBUF=1")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void aMalformedSeriesIsSkippedAndCountedTheOthersKept(String name, Series bad, Series good, List<String> expected)
            throws IOException {
        // the good series' symbols first: the bad one's refs index a table that holds "", "__name__", "up"
        assertThat(decode(Snappy.compress(v2(good, bad)), true)).isEqualTo(expected);
    }

    static Stream<Arguments> aMalformedRequestIsRejectedWhole() throws IOException {
        byte[] both = RemoteWriteBodyWriter.message(out -> {
            out.writeRawBytes(v1(series("__name__", "a").sample(1, 1000)));
            out.writeRawBytes(v2(series("__name__", "b").sample(1, 1000)));
        });
        byte[] badSymbol = RemoteWriteBodyWriter.message(out -> {
            out.writeString(4, "");
            out.writeByteArray(4, new byte[] {(byte) 0xC3, 0x28});
        });
        byte[] good = v2(series("__name__", "up").sample(1, 1000));
        return Stream.of(
                arguments("fields of 1.0 and 2.0", both, DecodeError.INVALID_PROTOBUF),
                arguments("a symbol not UTF-8", badSymbol, DecodeError.INVALID_UTF8),
                arguments("cut short", Arrays.copyOf(good, good.length - 3), DecodeError.INVALID_PROTOBUF),
                arguments("symbols only", v2(), DecodeError.NO_SAMPLES));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void aMalformedRequestIsRejectedWhole(String name, byte[] body, DecodeError expected) throws IOException {
        Decoded r = Decoded.of(d, Snappy.compress(body), 0);
        assertThat(r.rejections.first()).isEqualTo(expected);
        assertThat(r.rejections.total()).isEqualTo(1);
        assertThat(r.points).isEmpty();
    }

    @Test
    void unpackedLabelsRefsAreReadToo() throws IOException {
        byte[] body = RemoteWriteBodyWriter.message(out -> {
            for (String s : new String[] {"", "__name__", "up", "job", "j"}) {
                out.writeString(4, s);
            }
            out.writeByteArray(5, RemoteWriteBodyWriter.message(t -> {
                for (int ref : new int[] {1, 2, 3, 4}) {
                    t.writeUInt32(1, ref);
                }
                t.writeByteArray(2, RemoteWriteBodyWriter.message(s -> {
                    s.writeDouble(1, 2);
                    s.writeInt64(2, 1000);
                }));
            }));
        });
        assertThat(decode(Snappy.compress(body), false)).containsExactly("up{job=\"j\"} 2.0 @1000 st 0");
    }

    @Test
    void eachSymbolIsCopiedIntoTheArenaOnce() throws IOException {
        Series[] series = new Series[50];
        for (int i = 0; i < series.length; i++) {
            series[i] = series("__name__", "a_rather_long_metric_name", "job", "a_rather_long_job_name")
                    .sample(i, 1000 + i);
        }
        DecodedPoints v1Points = new DecodedPoints();
        d.decode(Snappy.compress(v1(series)), 0, v1Points, new Rejections());
        DecodedPoints v2Points = new DecodedPoints();
        d.decode(Snappy.compress(v2(series)), 0, v2Points, new Rejections());
        assertThat(Decoded.render(v2Points)).isEqualTo(Decoded.render(v1Points)).hasSize(50);
        assertThat(v2Points.labelName(v2Points.labelStart(49))).isEqualTo("job");
        assertThat(v2Points.metricOffset(49)).isEqualTo(v2Points.metricOffset(0));
    }

    /** The points rendered, each with its start timestamp and histogram bytes, then the refusals by kind. */
    private List<String> decode(byte[] record, boolean histograms) {
        DecodedPoints points = new DecodedPoints();
        points.histograms().accept(histograms);
        points.histograms().acceptCustomBuckets(histograms);
        Rejections rejections = new Rejections();
        d.decode(record, 0, points, rejections);
        List<String> rendered = Decoded.render(points);
        List<String> out = new ArrayList<>();
        PointHistograms hs = points.histograms();
        for (int p = 0; p < rendered.size(); p++) {
            String s = rendered.get(p) + " st " + points.startTimestampMs(p);
            int h = hs.of(p);
            if (h >= 0) {
                s += " h " + hex(Arrays.copyOfRange(hs.bytes(), hs.offset(h), hs.offset(h) + hs.length(h)));
            }
            out.add(s);
        }
        for (DecodeError e : DecodeError.values()) {
            if (rejections.count(e) > 0) {
                out.add(e + "=" + rejections.count(e));
            }
        }
        return out;
    }

    private static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }
}
