package io.tsdbwriter.verify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tsdbwriter.produce.SourcePoint;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class RangeVectorParserTest {

    private static final String OK = "{\"status\":\"success\",\"data\":{\"resultType\":\"matrix\",\"result\":[";

    /** The series as the sink got them: {@code KEY t=v t=v}, one string per series. */
    private static List<String> parse(String answer, long afterMs) throws IOException {
        List<String> out = new ArrayList<>();
        new RangeVectorParser().parse(answer, afterMs, (metric, labels, ts, vs, n) -> {
            StringBuilder b = new StringBuilder(SourcePoint.seriesKey(metric, labels));
            for (int i = 0; i < n; i++) {
                b.append(' ').append(ts[i]).append('=').append(vs[i]);
            }
            out.add(b.toString());
        });
        return out;
    }

    static Stream<Arguments> answers() {
        return Stream.of(
                Arguments.of(
                        "two series, exact timestamps and values",
                        OK + "{\"metric\":{\"__name__\":\"node_load1\",\"instanceNo\":\"h\",\"productKey\":\"node\"},"
                                + "\"values\":[[1795300857,\"0.25\"],[1795300857.5,\"41.178000000000004\"]]},"
                                + "{\"metric\":{\"__name__\":\"up\"},\"values\":[[1795300857.001,\"1\"]]}]}}",
                        Long.MIN_VALUE,
                        List.of(
                                "node_load1{instanceNo=\"h\",productKey=\"node\"} 1795300857000=0.25 1795300857500=41.178000000000004",
                                "up{} 1795300857001=1.0")),
                Arguments.of(
                        "special values as Go formats them",
                        OK + "{\"metric\":{\"__name__\":\"m\"},\"values\":[[1,\"NaN\"],[2,\"+Inf\"],[3,\"-Inf\"],"
                                + "[4,\"1e-300\"],[5,\"-0\"],[6,\"1.8446744073709552e+19\"]]}]}}",
                        Long.MIN_VALUE,
                        List.of(
                                "m{} 1000=NaN 2000=Infinity 3000=-Infinity 4000=1.0E-300 5000=-0.0 6000=1.8446744073709552E19")),
                Arguments.of(
                        "samples at or before afterMs dropped (Prometheus 2 includes the window's start)",
                        OK + "{\"metric\":{\"__name__\":\"m\"},\"values\":[[10,\"1\"],[10.001,\"2\"],[11,\"3\"]]}]}}",
                        10_000L,
                        List.of("m{} 10001=2.0 11000=3.0")),
                Arguments.of(
                        "labels with an empty value left out, a series without a name",
                        OK + "{\"metric\":{\"a\":\"\",\"b\":\"x\"},\"values\":[[1,\"1\"]]}]}}",
                        Long.MIN_VALUE,
                        List.of("{b=\"x\"} 1000=1.0")),
                Arguments.of(
                        "native histogram samples read as NaN beside the floats",
                        OK + "{\"metric\":{\"__name__\":\"h\"},\"values\":[[1,\"2\"]],"
                                + "\"histograms\":[[2,{\"count\":\"3\",\"sum\":\"4\",\"buckets\":[[0,\"0\",\"1\",\"3\"]]}]]}]}}",
                        Long.MIN_VALUE,
                        List.of("h{} 1000=2.0 2000=NaN")),
                Arguments.of(
                        "an empty result, warnings and infos, data before status",
                        "{\"data\":{\"result\":[],\"resultType\":\"matrix\"},\"warnings\":[\"w\"],\"infos\":[\"i\"],"
                                + "\"status\":\"success\"}",
                        Long.MIN_VALUE,
                        List.of()),
                Arguments.of(
                        "a series whose samples all lie before the window",
                        OK + "{\"metric\":{\"__name__\":\"m\"},\"values\":[[1,\"1\"]]}]}}",
                        5_000L,
                        List.of("m{}")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("answers")
    void parsesTheSamplesOfEverySeries(String name, String answer, long afterMs, List<String> series)
            throws IOException {
        assertThat(parse(answer, afterMs)).containsExactlyElementsOf(series);
    }

    static Stream<Arguments> refusals() {
        return Stream.of(
                Arguments.of(
                        "{\"status\":\"error\",\"errorType\":\"execution\",\"error\":\"query processing would load too many samples\"}",
                        "the query answered status error (execution): query processing would load too many samples"),
                Arguments.of(
                        "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}",
                        "the query answered a vector, not a range vector (matrix)"),
                Arguments.of("[1]", "the query answer is not a JSON object"),
                Arguments.of("{\"data\":{}}", "the query answered status null"),
                Arguments.of(
                        OK + "{\"metric\":{},\"values\":[[1,\"x\"]]}]}}",
                        "a query sample's value is not a number: 'x'"),
                Arguments.of(OK + "{\"metric\":{},\"values\":[[1,\"1\",3]]}]}}", "is not a [timestamp, value] pair"),
                Arguments.of(OK + "{\"metric\":{},\"values\":[[\"1\",\"1\"]]}]}}", "timestamp is VALUE_STRING"),
                Arguments.of(OK + "{\"metric\":{},\"values\":{}}]}}", "'values' is START_OBJECT"),
                Arguments.of(OK + "1]}}", "where a series was expected"));
    }

    @ParameterizedTest(name = "{1}")
    @MethodSource("refusals")
    void refusesWhatIsNoSuccessfulRangeVector(String answer, String message) {
        assertThatThrownBy(() -> parse(answer, Long.MIN_VALUE))
                .isInstanceOf(IOException.class)
                .hasMessageContaining(message);
    }

    @Test
    void readsAStreamToItsEndAndCountsTheSeries() throws IOException {
        String answer = OK + "{\"metric\":{\"__name__\":\"a\"},\"values\":[[1,\"1\"]]},"
                + "{\"metric\":{\"__name__\":\"b\"},\"values\":[[1,\"1\"]]}]}}";
        int[] samples = {0};

        int series = new RangeVectorParser()
                .parse(
                        new ByteArrayInputStream(answer.getBytes(StandardCharsets.UTF_8)),
                        Long.MIN_VALUE,
                        (m, l, ts, vs, n) -> samples[0] += n);

        assertThat(series).isEqualTo(2);
        assertThat(samples[0]).isEqualTo(2);
    }

    @Test
    void growsItsBuffersForALongSeries() throws IOException {
        StringBuilder b = new StringBuilder(OK + "{\"metric\":{\"__name__\":\"m\"},\"values\":[");
        for (int i = 0; i < 1000; i++) {
            b.append(i == 0 ? "" : ",")
                    .append("[")
                    .append(i)
                    .append(",\"")
                    .append(i)
                    .append("\"]");
        }
        long[] last = new long[2];

        new RangeVectorParser().parse(b.append("]}]}}").toString(), Long.MIN_VALUE, (m, l, ts, vs, n) -> {
            last[0] = n;
            last[1] = ts[n - 1] + (long) vs[n - 1];
        });

        assertThat(last).containsExactly(1000, 999_000 + 999);
    }
}
