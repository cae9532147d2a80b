package io.tsdbwriter.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import org.junit.jupiter.api.Test;

class StoredSamplesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void countsOneNameOverTheSpan() {
        assertThat(StoredSamples.query("node_load1")).isEqualTo("sum(count_over_time({__name__=\"node_load1\"}[30d]))");
        assertThat(StoredSamples.query("a\"b")).isEqualTo("sum(count_over_time({__name__=\"a\\\"b\"}[30d]))");
    }

    @Test
    void readsTheAnswersNumber() throws Exception {
        assertThat(
                        StoredSamples.value(
                                JSON.readTree(
                                        "{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[{\"metric\":{},\"value\":[1.7e9,\"10140\"]}]}}")))
                .isEqualTo(10_140);
        assertThat(StoredSamples.value(
                        JSON.readTree("{\"status\":\"success\",\"data\":{\"resultType\":\"vector\",\"result\":[]}}")))
                .isZero();
        assertThatThrownBy(() -> StoredSamples.value(JSON.readTree("{\"status\":\"error\",\"error\":\"bad query\"}")))
                .isInstanceOf(IOException.class)
                .hasMessage("query failed: bad query");
    }
}
