package io.tsdbwriter.decode.otlp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.tsdbwriter.decode.NativeHistogramMessage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * OTLP explicit buckets as the spans and deltas of a native histogram with custom buckets, laid out as Prometheus' OTLP
 * receiver lays them out ({@code convert_histograms_to_nhcb}): from the first non-empty bucket, gaps of more than two
 * empty buckets a new span, the last ({@code +Inf}) bucket always in, empty or not.
 */
class NativeCustomBucketsTest {

    private static final double INF = Double.POSITIVE_INFINITY;

    private final NativeCustomBuckets layout = new NativeCustomBuckets();

    static Stream<Arguments> layouts() {
        return Stream.of(
                // bucket counts, spans {offset, length}…, deltas
                arguments(new long[] {1}, new int[] {0, 1}, new long[] {1}),
                arguments(new long[] {5, 0, 3, 7}, new int[] {0, 4}, new long[] {5, -5, 3, 4}),
                arguments(new long[] {0, 0, 4}, new int[] {2, 1}, new long[] {4}),
                // the empty +Inf bucket stays, with the empty ones before it when they are at most two
                arguments(new long[] {5, 3, 0, 0}, new int[] {0, 4}, new long[] {5, -2, -3, 0}),
                arguments(new long[] {0, 2, 0, 0, 0}, new int[] {1, 4}, new long[] {2, -2, 0, 0}),
                // three or more before it: a span of its own
                arguments(new long[] {0, 2, 0, 0, 0, 0}, new int[] {1, 1, 3, 1}, new long[] {2, -2}),
                arguments(new long[] {5, 0, 0, 0, 0}, new int[] {0, 1, 3, 1}, new long[] {5, -5}),
                arguments(new long[] {0, 0, 5, 0, 0, 0, 0, 3}, new int[] {2, 1, 4, 1}, new long[] {5, -2}),
                arguments(new long[] {1, 0, 0, 2, 0, 0, 0, 3, 0}, new int[] {0, 4, 3, 2}, new long[] {1, -1, 0, 2, 1, -3
                }));
    }

    @ParameterizedTest
    @MethodSource("layouts")
    void bucketsBecomeSpansAndDeltas(long[] counts, int[] spans, long[] deltas) {
        assertThat(layout.layout(counts, counts.length)).isTrue();
        assertThat(layout.spans()).containsExactly(spans);
        assertThat(layout.deltas()).containsExactly(deltas);
    }

    @Test
    void everyBucketKeepsItsCountAtItsIndex() {
        for (int n = 1; n <= 40; n++) {
            long[] counts = new long[n];
            Map<Integer, Long> expected = new TreeMap<>();
            for (int i = 0; i < n; i++) {
                counts[i] = (i * 7919L + n) % 5 < 2 ? 0 : (i * 31L + n) % 17;
                if (counts[i] != 0) {
                    expected.put(i, counts[i]);
                }
            }
            if (!layout.layout(counts, n)) {
                assertThat(expected).isEmpty();
                continue;
            }
            int[] s = layout.spans();
            List<int[]> spans = new ArrayList<>();
            for (int k = 0; k < s.length; k += 2) {
                spans.add(new int[] {s[k], s[k + 1]});
                assertThat(k == 0 || s[k] > 2)
                        .as("a gap of more than 2 starts a span")
                        .isTrue();
            }
            Map<Integer, Long> got = NativeHistogramMessage.bucketsOf(
                    spans, Arrays.stream(layout.deltas()).boxed().toList());
            assertThat(got).containsKey(n - 1); // the +Inf bucket
            got.values().removeIf(c -> c == 0);
            assertThat(got).as("%d buckets", n).isEqualTo(expected);
        }
    }

    @Test
    void emptyBucketsMakeNoSpan() {
        assertThat(layout.layout(new long[] {0, 0, 0}, 3)).isFalse();
        assertThat(layout.layout(new long[] {0}, 1)).isFalse();
    }

    @Test
    void whatPrometheusWouldNotStoreIsNamed() {
        long[] counts = {1, 2, 3};
        assertThat(NativeCustomBuckets.valid(6, true, 9, false, counts, new double[] {1, 2}, 2))
                .isNull();
        assertThat(NativeCustomBuckets.valid(6, true, 9, false, counts, new double[] {-INF, 2}, 2))
                .as("-Inf may be the first bound")
                .isNull();
        assertThat(NativeCustomBuckets.valid(6, true, 9, false, counts, new double[] {2, 2}, 2))
                .contains("not above");
        assertThat(NativeCustomBuckets.valid(6, true, 9, false, counts, new double[] {2, 1}, 2))
                .contains("not above");
        assertThat(NativeCustomBuckets.valid(6, true, 9, false, counts, new double[] {Double.NaN, 1}, 2))
                .contains("NaN");
        assertThat(NativeCustomBuckets.valid(6, true, 9, false, counts, new double[] {1, INF}, 2))
                .contains("+Inf");
        assertThat(NativeCustomBuckets.valid(7, true, 9, false, counts, new double[] {1, 2}, 2))
                .contains("add up to 6");
        assertThat(NativeCustomBuckets.valid(6, false, 0, false, counts, new double[] {1, 2}, 2))
                .isNull();
        // a NaN sum lets the count exceed the buckets' total, not fall short of it
        assertThat(NativeCustomBuckets.valid(7, true, Double.NaN, false, counts, new double[] {1, 2}, 2))
                .isNull();
        assertThat(NativeCustomBuckets.valid(5, true, Double.NaN, false, counts, new double[] {1, 2}, 2))
                .contains("add up to 6");
        // a staleness marker's counts are not compared; its bounds are
        assertThat(NativeCustomBuckets.valid(0, false, 0, true, counts, new double[] {1, 2}, 2))
                .isNull();
        assertThat(NativeCustomBuckets.valid(0, false, 0, true, counts, new double[] {1, INF}, 2))
                .isNotNull();
    }
}
