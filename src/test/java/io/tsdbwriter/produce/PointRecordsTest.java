package io.tsdbwriter.produce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PointRecordsTest {

    private static SourcePoint point(double value) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("cpu", "0");
        labels.put("mode", "idle");
        labels.put("instanceNo", "node-0001");
        return new SourcePoint("node_cpu_seconds_total", labels, "node", 1795300857000L, value);
    }

    @Test
    void encodesAPointExactlyAsTheRecordContract() {
        String json = new String(PointRecords.encode(point(1234.56)), StandardCharsets.UTF_8);

        assertThat(json)
                .isEqualTo(
                        "{\"metric\":\"node_cpu_seconds_total\",\"timestamp\":1795300857000,\"value\":1234.56,"
                                + "\"dimensions\":{\"cpu\":\"0\",\"mode\":\"idle\",\"instanceNo\":\"node-0001\"},\"productKey\":\"node\"}");
    }

    @Test
    void encodesValuesSoTheyReadBackToTheSameDouble() throws Exception {
        for (double v :
                new double[] {1.5943e-05, 41.178000000000004, 1.8446744073709552e19, -0.0, 7, 1e-300, Double.MAX_VALUE
                }) {
            JsonNode node = PointRecords.objectMapper().readTree(PointRecords.encode(point(v)));
            assertThat(node.get("value").isNumber()).isTrue();
            assertThat(node.get("value").asDouble()).as("%s", v).isEqualTo(v);
            assertThat(node.get("timestamp").isIntegralNumber()).isTrue();
        }
    }

    @Test
    void packsSeveralPointsIntoAJsonArray() throws Exception {
        JsonNode node =
                PointRecords.objectMapper().readTree(PointRecords.encode(List.of(point(1), point(2), point(3))));

        assertThat(node.isArray()).isTrue();
        assertThat(node).hasSize(3);
        assertThat(node.get(2).get("value").asDouble()).isEqualTo(3);
    }

    @Test
    void encodesASinglePointListAsAnObject() {
        assertThat(PointRecords.encode(List.of(point(1)))).isEqualTo(PointRecords.encode(point(1)));
    }

    @Test
    void omitsProductKeyAndDimensionsWhenAbsent() {
        String json = new String(
                PointRecords.encode(new SourcePoint("up", Map.of(), null, 1795300857000L, 1)), StandardCharsets.UTF_8);

        assertThat(json).isEqualTo("{\"metric\":\"up\",\"timestamp\":1795300857000,\"value\":1.0}");
    }

    @Test
    void escapesLabelValues() throws Exception {
        SourcePoint p = new SourcePoint("m", Map.of("path", "C:\\x \"q\"\nz"), "node", 1795300857000L, 1);

        JsonNode node = PointRecords.objectMapper().readTree(PointRecords.encode(p));

        assertThat(node.get("dimensions").get("path").asText()).isEqualTo("C:\\x \"q\"\nz");
    }

    @Test
    void refusesAnEmptyRecord() {
        assertThatThrownBy(() -> PointRecords.encode(List.of())).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void sourcePointRefusesWhatTheContractRejects() {
        assertThatThrownBy(() -> new SourcePoint("bad-name", Map.of(), null, 1, 1))
                .hasMessageContaining("metric name");
        assertThatThrownBy(() -> new SourcePoint("m", Map.of("__x", "1"), null, 1, 1))
                .hasMessageContaining("label name");
        assertThatThrownBy(() -> new SourcePoint("m", Map.of("a", ""), null, 1, 1))
                .hasMessageContaining("empty value");
        assertThatThrownBy(() -> new SourcePoint("m", Map.of(), null, 1, Double.NaN))
                .hasMessageContaining("not finite");
        assertThat(new SourcePoint("m", Map.of(), "", 1, 1).productKey()).isNull();
    }

    @Test
    void seriesKeyIsSortedAndIncludesProductKey() {
        assertThat(point(1).seriesKey())
                .isEqualTo(
                        "node_cpu_seconds_total{cpu=\"0\",instanceNo=\"node-0001\",mode=\"idle\",productKey=\"node\"}");
        assertThat(SourcePoint.seriesKey("m", Map.of("a", "x\"y\\z\n"))).isEqualTo("m{a=\"x\\\"y\\\\z\\n\"}");
    }
}
