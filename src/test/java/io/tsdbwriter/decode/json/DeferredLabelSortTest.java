package io.tsdbwriter.decode.json;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.encode.vmimport.ImportLineEncoder;
import io.tsdbwriter.encode.vmimport.ValueText;
import io.tsdbwriter.wire.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The JSON fast path leaves a point's labels in the record's order ({@link DecodedPoints#deferSort}): whoever asks for
 * them sorted gets them sorted, the import encoder at N = 1 writes them as read, and a productKey that is also a
 * dimension is still resolved at decode time (the field wins).
 */
class DeferredLabelSortTest {

    private final PointDecoder decoder = new PointDecoder(1 << 20);

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static List<String> labels(DecodedPoints out, int from, int to) {
        List<String> l = new ArrayList<>();
        for (int i = from; i < to; i++) {
            l.add(out.labelName(i) + "=" + out.labelValue(i));
        }
        return l;
    }

    @Test
    void labelsStayInTheRecordsOrderUntilAskedForSorted() {
        DecodedPoints out = new DecodedPoints();
        assertThat(decoder.decode(
                        utf8(
                                "{\"metric\":\"m\",\"timestamp\":1795300857000,\"value\":1,"
                                        + "\"dimensions\":{\"mode\":\"idle\",\"cpu\":\"0\",\"job\":\"node\"},\"productKey\":\"pk\"}"),
                        out))
                .isNull();
        assertThat(labels(out, out.labelStartAsRead(0), out.labelEndAsRead(0)))
                .containsExactly("mode=idle", "cpu=0", "job=node", "productKey=pk");
        assertThat(labels(out, out.labelStart(0), out.labelEnd(0)))
                .containsExactly("cpu=0", "job=node", "mode=idle", "productKey=pk");
        assertThat(labels(out, out.labelStartAsRead(0), out.labelEndAsRead(0)))
                .as("sorted once asked")
                .containsExactly("cpu=0", "job=node", "mode=idle", "productKey=pk");
    }

    @Test
    void theSeriesKeyDoesNotDependOnTheRecordsOrder() {
        DecodedPoints a = new DecodedPoints();
        DecodedPoints b = new DecodedPoints();
        decoder.decode(
                utf8(
                        "{\"metric\":\"m\",\"timestamp\":1795300857000,\"value\":1,\"dimensions\":{\"b\":\"2\",\"a\":\"1\",\"c\":\"3\"}}"),
                a);
        decoder.decode(
                utf8(
                        "{\"metric\":\"m\",\"timestamp\":1795300857000,\"value\":1,\"dimensions\":{\"c\":\"3\",\"a\":\"1\",\"b\":\"2\"}}"),
                b);
        int la = a.seriesKey(0);
        byte[] ka = Arrays.copyOf(a.seriesKeyBytes(), la);
        int lb = b.seriesKey(0);
        assertThat(Arrays.copyOf(b.seriesKeyBytes(), lb)).isEqualTo(ka);
    }

    @Test
    void aProductKeyDimensionIsReplacedByTheFieldAtDecodeTime() {
        DecodedPoints out = new DecodedPoints();
        assertThat(decoder.decode(
                        utf8("{\"metric\":\"m\",\"timestamp\":1795300857000,\"value\":1,"
                                + "\"dimensions\":{\"productKey\":\"dim\",\"cpu\":\"0\"},\"productKey\":\"field\"}"),
                        out))
                .isNull();
        assertThat(labels(out, out.labelStartAsRead(0), out.labelEndAsRead(0)))
                .containsExactly("cpu=0", "productKey=field");
    }

    @Test
    void theImportEncoderWritesTheLabelsAsRead() {
        DecodedPoints out = new DecodedPoints();
        decoder.decode(
                utf8(
                        "{\"metric\":\"m\",\"timestamp\":1795300857000,\"value\":2.5,\"dimensions\":{\"mode\":\"idle\",\"cpu\":\"0\"}}"),
                out);
        ImportLineEncoder encoder = new ImportLineEncoder(new AmplificationPlan(2, 1, 60_000));
        ValueText v = new ValueText().set(out.value(0));
        ByteBuf body = new ByteBuf(64);
        assertThat(encoder.encodePointVerbatim(out, 0, v.bytes(), 0, v.length(), body))
                .isEqualTo(2);
        assertThat(new String(body.array(), 0, body.length(), StandardCharsets.US_ASCII))
                .isEqualTo("{\"metric\":{\"__name__\":\"m\",\"mode\":\"idle\",\"cpu\":\"0\"},\"values\":[2.5,2.5],"
                        + "\"timestamps\":[1795300857000,1795300887000]}\n");
    }
}
