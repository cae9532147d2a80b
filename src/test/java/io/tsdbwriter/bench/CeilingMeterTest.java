package io.tsdbwriter.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.it.support.RemoteWriteBodies;
import io.tsdbwriter.lab.BenchCell;
import io.tsdbwriter.produce.SourcePoint;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CeilingMeterTest {

    private static final long T = 1_795_000_000_000L;

    private static List<SourcePoint> points() {
        return List.of(
                new SourcePoint("node_load1", Map.of("instance", "a:9100", "job", "node"), "p", T, 0.5),
                new SourcePoint("node_load5", Map.of("instance", "a:9100", "job", "node"), "p", T, 0.25),
                new SourcePoint("node_load1", Map.of("instance", "b:9100", "job", "node"), "p", T, 1.5));
    }

    @Test
    void aRemoteWriteShapesBodiesAreRemoteWriteRequestsOfItsMSamplesPerSeries() throws Exception {
        List<CeilingMeter.Body> bodies = CeilingMeter.serialize(
                points().iterator(), new BenchCell.Shape(12, 1, "remote-write", null), 60_000, 10_000, 1 << 20);

        assertThat(bodies).hasSize(1);
        assertThat(bodies.get(0).samples()).isEqualTo(36);
        byte[] wire = Arrays.copyOf(
                bodies.get(0).bytes().array(), bodies.get(0).bytes().length());
        List<RemoteWriteBodies.Series> series = RemoteWriteBodies.decode(wire);
        assertThat(series).hasSize(3);
        assertThat(series).allSatisfy(s -> assertThat(s.samples()).hasSize(12));
        assertThat(series.get(1).labels()).contains(new RemoteWriteBodies.Label("__name__", "node_load5"));
    }

    @Test
    void anImportShapesBodiesAreImportLines() {
        List<CeilingMeter.Body> bodies =
                CeilingMeter.serialize(points().iterator(), new BenchCell.Shape(12, 1), 60_000, 10_000, 1 << 20);

        String text = new String(
                bodies.get(0).bytes().array(), 0, bodies.get(0).bytes().length(), StandardCharsets.UTF_8);
        assertThat(text.lines()).hasSize(3).allSatisfy(l -> assertThat(l).startsWith("{\"metric\":{"));
        assertThat(bodies.get(0).samples()).isEqualTo(36);
    }
}
