package io.tsdbwriter.decode.prometheus;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.Decoded;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.NativeHistogramMessage;
import io.tsdbwriter.decode.PointExemplars;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.TimestampWindow;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code --convert-classic-histograms-to-nhcb} in the {@code prometheus} decoder: which samples make one histogram
 * (Prometheus' {@code nhcbparse.go}: the family typed {@code histogram}, consecutive samples, the same labels but
 * {@code le}), what becomes of the rest, and that nothing changes unless both settings are on. {@link ClassicHistogramTest}
 * has the conversion of one histogram.
 */
class ClassicHistogramGroupsTest {

    private final ExpositionDecoder decoder = new ExpositionDecoder(1 << 20, Decoded.ANY_TIME);
    private final DecodedPoints points = new DecodedPoints();
    private final Rejections rejections = new Rejections();

    @BeforeEach
    void convert() {
        points.histograms().accept(true);
        points.histograms().acceptClassicCustomBuckets(true);
    }

    private List<String> decode(String text) {
        decoder.decode(text.getBytes(StandardCharsets.UTF_8), 42, points, rejections);
        List<String> out = new ArrayList<>();
        for (int p = 0; p < points.count(); p++) {
            StringBuilder sb = new StringBuilder(points.metric(p)).append('{');
            for (int i = points.labelStart(p); i < points.labelEnd(p); i++) {
                sb.append(i > points.labelStart(p) ? "," : "")
                        .append(points.labelName(i))
                        .append('=')
                        .append(points.labelValue(i));
            }
            sb.append("} ");
            if (points.histograms().of(p) >= 0) {
                NativeHistogramMessage h = NativeHistogramMessage.of(points, p);
                sb.append("count=")
                        .append(h.countInt() != null ? h.countInt().toString() : h.countFloat() + "f")
                        .append(" sum=")
                        .append(h.sum())
                        .append(" bounds=")
                        .append(h.customValues())
                        .append(" buckets=")
                        .append(h.countInt() != null ? h.positive() : h.positiveCounts());
            } else {
                sb.append(points.value(p));
            }
            d(sb.append(" @").append(points.timestampMs(p)), p);
            out.add(sb.toString());
        }
        return out;
    }

    /** Appends point {@code p}'s exemplar value, if it has one. */
    private void d(StringBuilder sb, int p) {
        PointExemplars e = points.exemplars();
        int x = e.of(p);
        if (x >= 0) {
            sb.append(" ex=").append(e.value(x));
        }
    }

    private static final String TWO_SERIES =
            """
            # HELP rpc_seconds RPC latency.
            # TYPE rpc_seconds histogram
            rpc_seconds_bucket{code="200",le="0.1"} 3
            rpc_seconds_bucket{code="200",le="1"} 5
            rpc_seconds_bucket{code="200",le="+Inf"} 6
            rpc_seconds_sum{code="200"} 2.5
            rpc_seconds_count{code="200"} 6
            rpc_seconds_bucket{code="500",le="0.1"} 0
            rpc_seconds_bucket{code="500",le="1"} 1
            rpc_seconds_bucket{code="500",le="+Inf"} 1
            rpc_seconds_sum{code="500"} 0.5
            rpc_seconds_count{code="500"} 1
            # TYPE up gauge
            up 1
            """;

    @Test
    void eachLabelSetOfAHistogramFamilyIsOneNativeHistogramNamedAsTheFamilyTheOtherSamplesStay() {
        assertThat(decode(TWO_SERIES))
                .containsExactly(
                        "rpc_seconds{code=200} count=6 sum=2.5 bounds=[0.1, 1.0] buckets={0=3, 1=2, 2=1} @42",
                        "rpc_seconds{code=500} count=1 sum=0.5 bounds=[0.1, 1.0] buckets={1=1} @42",
                        "up{} 1.0 @42");
        assertThat(rejections.total()).isZero();
        assertThat(points.families().find("rpc_seconds".getBytes(StandardCharsets.UTF_8), 0, 11))
                .isNotNegative();
    }

    @Test
    void withoutTheOptionOrWithoutNativeHistogramsInTheOutputClassicHistogramsStayClassic() {
        points.histograms().acceptClassicCustomBuckets(false);
        assertThat(decode(TWO_SERIES)).hasSize(11);
        points.histograms().acceptClassicCustomBuckets(true);
        points.histograms().accept(false); // the import API
        assertThat(decode(TWO_SERIES)).hasSize(11);
        assertThat(points.histograms().count()).isZero();
    }

    @Test
    void onlyAFamilyTypedHistogramConvertsNotAGaugeHistogramNorAnUntypedOneNorAnotherFamilysSamples() {
        assertThat(
                        decode(
                                """
                        # TYPE g gaugehistogram
                        g_bucket{le="1"} 1
                        g_bucket{le="+Inf"} 1
                        u_bucket{le="1"} 1
                        # TYPE h histogram
                        other_bucket{le="1"} 1
                        h_bucket{le="+Inf"} 2
                        """))
                .containsExactly(
                        "g_bucket{le=1} 1.0 @42",
                        "g_bucket{le=+Inf} 1.0 @42",
                        "u_bucket{le=1} 1.0 @42",
                        "other_bucket{le=1} 1.0 @42",
                        "h{} count=2 sum=0.0 bounds=[] buckets={0=2} @42");
    }

    @Test
    void aCommentOrAnotherLabelSetEndsAHistogramSoAFamilySplitAcrossTheRecordIsTwoHistograms() {
        assertThat(
                        decode(
                                """
                        # TYPE h histogram
                        h_bucket{a="1",le="1"} 1
                        # a comment
                        h_bucket{a="1",le="+Inf"} 3
                        h_bucket{a="2",le="+Inf"} 4
                        h_count{a="1"} 3
                        """))
                .containsExactly(
                        "h{a=1} count=1 sum=0.0 bounds=[1.0] buckets={0=1} @42",
                        "h{a=1} count=3 sum=0.0 bounds=[] buckets={0=3} @42",
                        "h{a=2} count=4 sum=0.0 bounds=[] buckets={0=4} @42",
                        "h{a=1} count=3 sum=0.0 bounds=[] buckets={0=3} @42");
    }

    @Test
    void whatIsNoNativeHistogramIsDroppedWholeAndCountedTheOtherHistogramsKept() {
        assertThat(
                        decode(
                                """
                        # TYPE h histogram
                        h_bucket{a="1",le="1"} 5
                        h_bucket{a="1",le="+Inf"} 3
                        h_count{a="1"} 3
                        h_bucket{a="2",le="+Inf"} 3
                        h_count{a="2"} 4
                        h_bucket{a="3",le="+Inf"} 1
                        h_count{a="3"} -1
                        h_bucket{a="4",le="1"} 2
                        """))
                .containsExactly("h{a=4} count=2 sum=0.0 bounds=[1.0] buckets={0=2} @42");
        assertThat(rejections.count(DecodeError.INVALID_DATA_POINT)).isEqualTo(3);
        assertThat(rejections.total()).isEqualTo(3);
    }

    @Test
    void aSampleThatDoesNotBelongStaysASampleAndLeavesTheHistogramOpen() {
        assertThat(
                        decode(
                                """
                        # TYPE h histogram
                        h_bucket{le="1"} 1
                        h_bucket{le="x"} 7
                        h_bucket 8
                        h 9
                        h_bucket{le="+Inf"} 2
                        h_sum 4
                        """))
                .containsExactly(
                        "h_bucket{le=x} 7.0 @42",
                        "h_bucket{} 8.0 @42",
                        "h{} 9.0 @42",
                        "h{} count=2 sum=4.0 bounds=[1.0] buckets={0=1, 1=1} @42");
    }

    @Test
    void theHistogramTakesItsLastSamplesTimestampAndItsFirstExemplar() {
        assertThat(
                        decode(
                                """
                        # TYPE h histogram
                        h_bucket{le="1"} 1 1000 # {trace_id="a"} 0.5 1
                        h_bucket{le="+Inf"} 1 2000 # {trace_id="b"} 7
                        h_count 1 3000
                        m 5 4000 # {trace_id="c"} 9
                        """))
                .containsExactly(
                        "m{} 5.0 @4000000 ex=9.0", "h{} count=1 sum=0.0 bounds=[1.0] buckets={0=1} @3000000 ex=0.5");
    }

    @Test
    void aLineOutsideTheTimestampWindowIsRefusedAndNeitherJoinsNorEndsTheHistogram() {
        ExpositionDecoder windowed = new ExpositionDecoder(1 << 20, new TimestampWindow(1_000_000, Long.MAX_VALUE));
        windowed.decode(
                """
                # TYPE h histogram
                h_bucket{le="1"} 1 2000
                h_bucket{le="+Inf"} 5 5
                m 1 5
                h_bucket{le="+Inf"} 2 2000
                m 1 3000
                """
                        .getBytes(StandardCharsets.UTF_8),
                42,
                points,
                rejections);
        assertThat(rejections.count(DecodeError.IMPLAUSIBLE_TIMESTAMP)).isEqualTo(2);
        assertThat(points.count()).isEqualTo(2);
        assertThat(points.metric(0)).isEqualTo("m");
        assertThat(points.metric(1)).isEqualTo("h");
        assertThat(NativeHistogramMessage.of(points, 1).countInt()).isEqualTo(2);
        assertThat(points.timestampMs(1)).isEqualTo(2_000_000);
    }

    @Test
    void aTypeDoesNotOutliveItsRecordAndARecordOfOnlyARefusedHistogramHasNoPoints() {
        decode("# TYPE h histogram\nh_bucket{le=\"1\"} 1\n");
        assertThat(decode("h_bucket{le=\"1\"} 1\n")).containsExactly("h_bucket{le=1} 1.0 @42");
        assertThat(decode("# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"2\"} 1\n"))
                .isEmpty();
        assertThat(rejections.count(DecodeError.INVALID_DATA_POINT)).isEqualTo(1);
        assertThat(rejections.count(DecodeError.NO_SAMPLES)).isZero();
    }

    @Test
    void openMetricsHistogramsConvertAndTheirCreatedSeriesStaysASample() {
        assertThat(
                        decode(
                                """
                        # TYPE h histogram
                        # UNIT h seconds
                        h_bucket{le="0.5"} 1.5 1795300857
                        h_bucket{le="+Inf"} 2.5 1795300857
                        h_sum 3 1795300857
                        h_count 2.5 1795300857
                        h_created 1795300000 1795300857
                        # EOF
                        """))
                .containsExactly(
                        "h_created{} 1.7953E9 @1795300857000",
                        "h{} count=2.5f sum=3.0 bounds=[0.5] buckets=[1.5, 1.0] @1795300857000");
    }
}
