package io.tsdbwriter.decode;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.decode.graphite.GraphiteDecoder;
import io.tsdbwriter.decode.influx.InfluxDecoder;
import io.tsdbwriter.decode.jsonline.ExportLineDecoder;
import io.tsdbwriter.decode.prometheus.ExpositionDecoder;
import io.tsdbwriter.encode.vmimport.ImportLineEncoder;
import io.tsdbwriter.encode.vmimport.ValueText;
import io.tsdbwriter.wire.ByteBuf;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** At N = 1 a JSON-safe record of any format is written verbatim: the same bytes as through the series cache. */
class VerbatimEncodingTest {

    private static void assertSameLines(RecordDecoder decoder, String record, boolean expectSafe) {
        DecodedPoints points = new DecodedPoints();
        decoder.decode(record.getBytes(StandardCharsets.UTF_8), 1_795_300_857_000L, points, new Rejections());
        assertThat(points.count()).isPositive();
        assertThat(points.jsonSafe()).as(record).isEqualTo(expectSafe);
        ImportLineEncoder encoder = new ImportLineEncoder(new AmplificationPlan(3, 1, 60_000, "host"));
        ValueText v = new ValueText();
        for (int p = 0; p < points.count(); p++) {
            int from = points.labelStart(p);
            int n = points.labelEnd(p) - from;
            String[] names = new String[n];
            String[] values = new String[n];
            for (int i = 0; i < n; i++) {
                names[i] = points.labelName(from + i);
                values[i] = points.labelValue(from + i);
            }
            ByteBuf cached = new ByteBuf(256);
            v.set(points.value(p));
            encoder.encodePoint(
                    encoder.prepareLines(points.metric(p), names, values, 0, n),
                    0,
                    points.timestampMs(p),
                    v.bytes(),
                    v.length(),
                    cached);
            if (expectSafe) {
                ByteBuf verbatim = new ByteBuf(256);
                encoder.encodePointVerbatim(points, p, v.bytes(), 0, v.length(), verbatim);
                assertThat(new String(verbatim.array(), 0, verbatim.length(), StandardCharsets.UTF_8))
                        .isEqualTo(new String(cached.array(), 0, cached.length(), StandardCharsets.UTF_8));
            }
        }
    }

    @Test
    void everyLineFormat() {
        assertSameLines(
                new InfluxDecoder(1 << 20, InfluxDecoder.Precision.NS, Decoded.ANY_TIME),
                "cpu,zone=é,host=a,cpu=0 idle=1.5,user=2i\nmem,a=b free=3 1795300857000000000\nx,zz=1 v=1",
                true);
        assertSameLines(
                new InfluxDecoder(1 << 20, InfluxDecoder.Precision.NS, Decoded.ANY_TIME), "m,t=a\\\\b v=1", false);
        assertSameLines(
                new ExpositionDecoder(1 << 20, Decoded.ANY_TIME),
                "# TYPE x gauge\nx{a=\"b\",host=\"h\"} 1\ny 2 1795300857000",
                true);
        assertSameLines(new ExpositionDecoder(1 << 20, Decoded.ANY_TIME), "x{a=\"q\\\"uote\"} 1", false);
        assertSameLines(new GraphiteDecoder(1 << 20, Decoded.ANY_TIME), "a.b.c;host=h;k=v 1 1795300857\nd 2", true);
        assertSameLines(
                new ExportLineDecoder(1 << 20, Decoded.ANY_TIME),
                "{\"metric\":{\"__name__\":\"m\",\"instance\":\"x\"},\"values\":[1,2],\"timestamps\":[1,2]}",
                true);
    }
}
