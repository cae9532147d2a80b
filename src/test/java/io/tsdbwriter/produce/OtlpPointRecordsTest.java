package io.tsdbwriter.produce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tsdbwriter.decode.Decoded;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.json.PointDecoder;
import io.tsdbwriter.decode.otlp.OtlpDecoder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OtlpPointRecordsTest {

    private static final long NOW_MS = 1_796_616_420_000L;

    /** The same points as a JSON point record and as an OTLP record read by the writer's own decoders: equal samples. */
    @Test
    void theWritersOtlpDecoderReadsTheSameSamplesAsFromTheJsonPointRecord() {
        List<List<SourcePoint>> records = List.of(
                List.of(new SourcePoint("node_load1", Map.of("instanceNo", "node-0001"), "node", NOW_MS, 0.12)),
                List.of(
                        new SourcePoint(
                                "node_cpu_seconds_total", labels("cpu", "0", "mode", "idle"), null, NOW_MS, 1.5e6),
                        new SourcePoint("node_load1", labels("instanceNo", "n2"), "node", NOW_MS - 60_000, -0.0),
                        new SourcePoint("node_cpu_seconds_total", labels("cpu", "1", "mode", "idle"), null, NOW_MS, 7),
                        new SourcePoint("up", Map.of(), null, NOW_MS, 1)));
        for (List<SourcePoint> record : records) {
            assertThat(samples(otlp(OtlpPointRecords.encode(record))))
                    .as("record %s", record)
                    .containsExactlyInAnyOrderElementsOf(samples(json(PointRecords.encode(record))))
                    .hasSize(record.size());
        }
    }

    @Test
    void anEmptyRecordIsRefused() {
        assertThatThrownBy(() -> OtlpPointRecords.encode(List.of())).isInstanceOf(IllegalArgumentException.class);
    }

    private static Map<String, String> labels(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private static DecodedPoints otlp(byte[] value) {
        DecodedPoints points = new DecodedPoints();
        Rejections rejections = new Rejections();
        new OtlpDecoder(1 << 20, Decoded.ANY_TIME).decode(value, NOW_MS, points, rejections);
        assertThat(rejections.total()).isZero();
        return points;
    }

    private static DecodedPoints json(byte[] value) {
        DecodedPoints points = new DecodedPoints();
        assertThat(new PointDecoder(1 << 20).decode(value, points)).isNull();
        return points;
    }

    /** Each sample as {@code metric{a="b",…} value @ts} with its labels sorted. */
    private static List<String> samples(DecodedPoints points) {
        for (int p = 0; p < points.count(); p++) {
            points.sortLabels(p);
        }
        return Decoded.render(points);
    }
}
