package io.tsdbwriter.decode.promremotewrite;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.Decoded;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.NativeHistogramBuilder;
import io.tsdbwriter.decode.NativeHistogramMessage;
import io.tsdbwriter.decode.Rejections;
import java.io.IOException;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Remote write native histograms where the output has none (the import API): the samples VictoriaMetrics' own remote
 * write ingestion ({@code lib/prompb}, v1.143.0 on) makes of the same histogram. Expected {@code vmrange} bounds were
 * printed by Go with VictoriaMetrics' formula ({@code upper = base^i}, {@code lower = upper / base},
 * {@code FormatFloat(v, 'e', 3, 64)}).
 */
class VmrangeHistogramsTest {

    private static final long STALE_NAN_BITS = 0x7ff0000000000002L;

    static Stream<Arguments> histograms() {
        return Stream.of(
                Arguments.of(
                        "integer, schema 0: zero bucket, positive spans with a gap, a negative bucket",
                        (Consumer<NativeHistogramBuilder>) m -> m.countInt(8)
                                .sum(10.5)
                                .schema(0)
                                .zeroThreshold(1e-128)
                                .zeroCountInt(1)
                                .positiveSpan(-1, 2)
                                .positiveSpan(2, 1)
                                .positiveDeltas(2, -1, 3)
                                .negativeSpan(1, 1)
                                .negativeDeltas(1),
                        List.of(
                                "up_count{job=\"j\"} 8.0",
                                "up_sum{job=\"j\"} 10.5",
                                "up_bucket{job=\"j\",vmrange=\"-1.000e-128...1.000e-128\"} 1.0",
                                "up_bucket{job=\"j\",vmrange=\"2.500e-01...5.000e-01\"} 2.0",
                                "up_bucket{job=\"j\",vmrange=\"5.000e-01...1.000e+00\"} 1.0",
                                "up_bucket{job=\"j\",vmrange=\"4.000e+00...8.000e+00\"} 4.0",
                                "up_bucket{job=\"j\",vmrange=\"-2.000e+00...-1.000e+00\"} 1.0")),
                Arguments.of(
                        "schema 0 at bucket -7: the upper bound a tie, rounded to even as Go does",
                        (Consumer<NativeHistogramBuilder>)
                                m -> m.countInt(1).positiveSpan(-7, 1).positiveDeltas(1),
                        List.of(
                                "up_count{job=\"j\"} 1.0",
                                "up_sum{job=\"j\"} 0.0",
                                "up_bucket{job=\"j\",vmrange=\"3.906e-03...7.812e-03\"} 1.0")),
                Arguments.of(
                        "schema -4: an empty bucket left out, no zero bucket when its count is 0",
                        (Consumer<NativeHistogramBuilder>) m -> m.countInt(3)
                                .sum(70000)
                                .schema(-4)
                                .zeroThreshold(1e-128)
                                .zeroCountInt(0)
                                .positiveSpan(0, 3)
                                .positiveDeltas(1, -1, 2),
                        List.of(
                                "up_count{job=\"j\"} 3.0",
                                "up_sum{job=\"j\"} 70000.0",
                                "up_bucket{job=\"j\",vmrange=\"1.526e-05...1.000e+00\"} 1.0",
                                "up_bucket{job=\"j\",vmrange=\"6.554e+04...4.295e+09\"} 2.0")),
                Arguments.of(
                        "schemas 3 and 8",
                        (Consumer<NativeHistogramBuilder>) m -> m.countInt(2)
                                .sum(2.5)
                                .schema(8)
                                .positiveSpan(-7, 1)
                                .positiveSpan(7, 1)
                                .positiveDeltas(1, 0),
                        List.of(
                                "up_count{job=\"j\"} 2.0",
                                "up_sum{job=\"j\"} 2.5",
                                "up_bucket{job=\"j\",vmrange=\"9.786e-01...9.812e-01\"} 1.0",
                                "up_bucket{job=\"j\",vmrange=\"1.000e+00...1.003e+00\"} 1.0")),
                Arguments.of(
                        "schema 3",
                        (Consumer<NativeHistogramBuilder>) m -> m.countInt(5)
                                .sum(7)
                                .schema(3)
                                .positiveSpan(5, 1)
                                .positiveDeltas(5),
                        List.of(
                                "up_count{job=\"j\"} 5.0",
                                "up_sum{job=\"j\"} 7.0",
                                "up_bucket{job=\"j\",vmrange=\"1.414e+00...1.542e+00\"} 5.0")),
                Arguments.of(
                        "float histogram: float zero count, counts of 0, NaN and below 0 left out, negative counts",
                        (Consumer<NativeHistogramBuilder>) m -> m.countFloat(5.5)
                                .sum(3)
                                .schema(1)
                                .zeroThreshold(0.001)
                                .zeroCountFloat(0.5)
                                .positiveSpan(0, 5)
                                .positiveCounts(1.5, 0, Double.NaN, -1, 2)
                                .negativeSpan(0, 1)
                                .negativeCounts(1.5),
                        List.of(
                                "up_count{job=\"j\"} 5.5",
                                "up_sum{job=\"j\"} 3.0",
                                "up_bucket{job=\"j\",vmrange=\"-1.000e-03...1.000e-03\"} 0.5",
                                "up_bucket{job=\"j\",vmrange=\"7.071e-01...1.000e+00\"} 1.5",
                                "up_bucket{job=\"j\",vmrange=\"2.828e+00...4.000e+00\"} 2.0",
                                "up_bucket{job=\"j\",vmrange=\"-1.000e+00...-7.071e-01\"} 1.5")),
                Arguments.of(
                        "custom buckets (schema -53): custom values ignored, bucket 0 is 0...1, the later ones NaN...+Inf",
                        (Consumer<NativeHistogramBuilder>) m -> m.countInt(6)
                                .sum(10)
                                .schema(-53)
                                .positiveSpan(0, 4)
                                .positiveDeltas(1, 1, -1, 1)
                                .customValues(1, 2, 5),
                        List.of(
                                "up_count{job=\"j\"} 6.0",
                                "up_sum{job=\"j\"} 10.0",
                                "up_bucket{job=\"j\",vmrange=\"0.000e+00...1.000e+00\"} 1.0",
                                "up_bucket{job=\"j\",vmrange=\"NaN...+Inf\"} 2.0",
                                "up_bucket{job=\"j\",vmrange=\"NaN...+Inf\"} 1.0",
                                "up_bucket{job=\"j\",vmrange=\"NaN...+Inf\"} 2.0")),
                Arguments.of(
                        "a zero threshold of 0, a uint64 count above 2^63, spans longer than their deltas",
                        (Consumer<NativeHistogramBuilder>) m -> m.countInt(-1L)
                                .zeroCountInt(2)
                                .positiveSpan(1, 3)
                                .positiveDeltas(4),
                        List.of(
                                "up_count{job=\"j\"} 1.8446744073709552E19",
                                "up_sum{job=\"j\"} 0.0",
                                "up_bucket{job=\"j\",vmrange=\"-0.000e+00...0.000e+00\"} 2.0",
                                "up_bucket{job=\"j\",vmrange=\"1.000e+00...2.000e+00\"} 4.0")),
                Arguments.of(
                        "a float count wins over an integer one, counts over deltas",
                        (Consumer<NativeHistogramBuilder>) m -> m.countInt(9)
                                .countFloat(4)
                                .positiveSpan(0, 1)
                                .positiveDeltas(7)
                                .positiveCounts(4),
                        List.of(
                                "up_count{job=\"j\"} 4.0",
                                "up_sum{job=\"j\"} 0.0",
                                "up_bucket{job=\"j\",vmrange=\"5.000e-01...1.000e+00\"} 4.0")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("histograms")
    void convertsAsVictoriaMetricsDoes(String name, Consumer<NativeHistogramBuilder> histogram, List<String> samples)
            throws IOException {
        NativeHistogramBuilder m = new NativeHistogramBuilder();
        histogram.accept(m);
        Rejections rejections = new Rejections(Rejections.NonFinite.KEEP_INFINITIES);
        List<String> got = decode(m.timestamp(1000).bytes(), rejections);
        assertThat(got)
                .containsExactlyElementsOf(
                        samples.stream().map(s -> s + " @1000").toList());
        assertThat(rejections.total()).isZero();
    }

    @Test
    void bucketsInsideAndOutsideTheCachedWindowAndAgainFromTheCache() throws IOException {
        byte[] h = new NativeHistogramBuilder()
                .countInt(4)
                .schema(3)
                .positiveSpan(-2048, 1) // the window's first index
                .positiveSpan(4094, 2) // its last, then the first beyond it
                .positiveSpan(951, 1) // index 3000
                .positiveDeltas(1, 0, 0, 0)
                .timestamp(1000)
                .bytes();
        List<String> expected = List.of(
                "up_count{job=\"j\"} 4.0 @1000",
                "up_sum{job=\"j\"} 0.0 @1000",
                "up_bucket{job=\"j\",vmrange=\"7.919e-78...8.636e-78\"} 1.0 @1000",
                "up_bucket{job=\"j\",vmrange=\"9.737e+76...1.062e+77\"} 1.0 @1000",
                "up_bucket{job=\"j\",vmrange=\"1.062e+77...1.158e+77\"} 1.0 @1000",
                "up_bucket{job=\"j\",vmrange=\"7.057e+112...7.696e+112\"} 1.0 @1000");
        RemoteWriteDecoder decoder = new RemoteWriteDecoder(1 << 20, Decoded.ANY_TIME);
        for (int round = 0; round < 2; round++) { // the second from the cache
            DecodedPoints points = new DecodedPoints();
            decoder.decode(
                    NativeHistogramMessage.writeRequest(h),
                    0,
                    points,
                    new Rejections(Rejections.NonFinite.KEEP_INFINITIES));
            assertThat(Decoded.render(points)).as("round " + round).containsExactlyElementsOf(expected);
        }
        byte[] fine = new NativeHistogramBuilder()
                .countInt(1)
                .schema(12) // above 8: not cached, converted all the same
                .positiveSpan(5, 1)
                .positiveDeltas(1)
                .timestamp(1000)
                .bytes();
        assertThat(decode(fine, new Rejections(Rejections.NonFinite.KEEP_INFINITIES)))
                .contains("up_bucket{job=\"j\",vmrange=\"1.001e+00...1.001e+00\"} 1.0 @1000");
    }

    @Test
    void aStaleHistogramGivesCountZeroAndItsStaleSumIsDroppedAsTheImportApiDropsNaN() throws IOException {
        NativeHistogramBuilder m = new NativeHistogramBuilder()
                .countInt(0)
                .sum(Double.longBitsToDouble(STALE_NAN_BITS))
                .timestamp(1000);
        Rejections rejections = new Rejections(Rejections.NonFinite.KEEP_INFINITIES);
        assertThat(decode(m.bytes(), rejections)).containsExactly("up_count{job=\"j\"} 0.0 @1000");
        assertThat(rejections.count(DecodeError.NON_FINITE_VALUE)).isEqualTo(1);
        assertThat(rejections.first()).isEqualTo(DecodeError.NON_FINITE_VALUE);
    }

    @Test
    void anInfiniteBucketCountIsKeptWhereTheOutputKeepsInfinities() throws IOException {
        NativeHistogramBuilder m = new NativeHistogramBuilder()
                .countFloat(Double.POSITIVE_INFINITY)
                .positiveSpan(0, 1)
                .positiveCounts(Double.POSITIVE_INFINITY)
                .timestamp(1000);
        assertThat(decode(m.bytes(), new Rejections(Rejections.NonFinite.KEEP_INFINITIES)))
                .containsExactly(
                        "up_count{job=\"j\"} Infinity @1000",
                        "up_sum{job=\"j\"} 0.0 @1000",
                        "up_bucket{job=\"j\",vmrange=\"5.000e-01...1.000e+00\"} Infinity @1000");
    }

    @Test
    void eachHistogramOfASeriesAtItsOwnTimestamp() throws IOException {
        byte[] first =
                new NativeHistogramBuilder().countInt(1).sum(1).timestamp(1000).bytes();
        byte[] second =
                new NativeHistogramBuilder().countInt(2).sum(3).timestamp(2000).bytes();
        DecodedPoints points = new DecodedPoints();
        Rejections rejections = new Rejections(Rejections.NonFinite.KEEP_INFINITIES);
        new RemoteWriteDecoder(1 << 20, Decoded.ANY_TIME)
                .decode(NativeHistogramMessage.writeRequest(first, second), 0, points, rejections);
        assertThat(Decoded.render(points))
                .containsExactly(
                        "up_count{job=\"j\"} 1.0 @1000",
                        "up_sum{job=\"j\"} 1.0 @1000",
                        "up_count{job=\"j\"} 2.0 @2000",
                        "up_sum{job=\"j\"} 3.0 @2000");
        assertThat(points.histograms().count()).isZero();
    }

    private static List<String> decode(byte[] histogram, Rejections rejections) throws IOException {
        DecodedPoints points = new DecodedPoints(); // histograms not accepted: the import API
        new RemoteWriteDecoder(1 << 20, Decoded.ANY_TIME)
                .decode(NativeHistogramMessage.writeRequest(histogram), 0, points, rejections);
        return Decoded.render(points);
    }
}
