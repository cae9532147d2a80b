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

/** OTLP exponential buckets as native histogram spans and deltas, scale above 8 merged (Prometheus' OTLP receiver). */
class NativeExponentialTest {

    private final NativeExponential layout = new NativeExponential(new WireReader());

    static Stream<Arguments> layouts() {
        return Stream.of(
                // counts, OTLP offset, scale − 8 (0: none merged), spans {offset, length}…, deltas
                arguments(new long[] {1, 2, 3}, 0, 0, new int[] {1, 3}, new long[] {1, 1, 1}),
                arguments(new long[] {5, 0, 0, 7}, 0, 0, new int[] {1, 4}, new long[] {5, -5, 0, 7}),
                arguments(new long[] {5, 0, 0, 0, 7}, -2, 0, new int[] {-1, 1, 3, 1}, new long[] {5, 2}),
                arguments(new long[] {0, 0, 3, 0}, 0, 0, new int[] {3, 1}, new long[] {3}),
                // scale 10: 4 OTLP buckets per native one
                arguments(new long[] {1, 1, 1, 1, 1, 1, 1, 1}, 0, 2, new int[] {1, 2}, new long[] {4, 0}),
                // scale 9, a negative offset: OTLP indices -3..0 >> 1 = -2, -1, -1, 0, + 1
                arguments(new long[] {1, 2, 3, 4}, -3, 1, new int[] {-1, 3}, new long[] {1, 4, -1}),
                // scale 12: 16 per native bucket, the first 13 of which fall below index 0
                arguments(new long[] {1, 0, 0, 0, 2}, 13, 4, new int[] {1, 2}, new long[] {1, 1}));
    }

    @ParameterizedTest
    @MethodSource("layouts")
    void bucketsBecomeSpansAndDeltas(long[] counts, int offset, int scaleDown, int[] spans, long[] deltas) {
        assertThat(layout.layout(counts, counts.length, offset, scaleDown)).isTrue();
        assertThat(layout.spans()).containsExactly(spans);
        assertThat(layout.deltas()).containsExactly(deltas);
    }

    @Test
    void mergedBucketsHoldTheSumOfTheirOtlpBucketsAtEveryScaleDown() {
        long[] counts = new long[200];
        for (int i = 0; i < counts.length; i++) {
            counts[i] = (i * 7919L) % 13 < 4 ? 0 : (i * 31L) % 17;
        }
        for (int offset : new int[] {-150, -37, 0, 5, 1000}) {
            for (int d = 0; d <= 12; d++) {
                Map<Integer, Long> expected = new TreeMap<>();
                for (int i = 0; i < counts.length; i++) {
                    if (counts[i] != 0) {
                        expected.merge(Math.floorDiv(offset + i, 1 << d) + 1, counts[i], Long::sum);
                    }
                }
                layout.layout(counts, counts.length, offset, d);
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
                got.values().removeIf(c -> c == 0);
                assertThat(got).as("offset %d, scale down %d", offset, d).isEqualTo(expected);
            }
        }
    }

    @Test
    void emptyBucketsMakeNoSpan() {
        assertThat(layout.layout(new long[] {0, 0}, 2, 3, 0)).isFalse();
        assertThat(layout.layout(new long[0], 0, 3, 0)).isFalse();
    }
}
