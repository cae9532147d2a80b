package io.tsdbwriter.decode;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Test helper: decodes with a decoder and renders points as {@code metric{a="b"} value @ts}. */
public final class Decoded {

    /**
     * A window that takes any timestamp: for the tests of a format's syntax, whose fixtures use small timestamps
     * (0, 1, 1000). The window itself is tested in {@code TimestampWindowTest}.
     */
    public static final TimestampWindow ANY_TIME = new TimestampWindow(0, Long.MAX_VALUE);

    public final List<String> points = new ArrayList<>();
    public final Rejections rejections = new Rejections();

    public static Decoded of(RecordDecoder decoder, String text, long kafkaTs) {
        return of(decoder, text.getBytes(StandardCharsets.UTF_8), kafkaTs);
    }

    public static Decoded of(RecordDecoder decoder, byte[] bytes, long kafkaTs) {
        Decoded d = new Decoded();
        DecodedPoints out = new DecodedPoints();
        decoder.decode(bytes, kafkaTs, out, d.rejections);
        d.points.addAll(render(out));
        return d;
    }

    /** Each point of {@code out} as {@code metric{a="b",…} value @ts}, labels in their order in {@code out}. */
    public static List<String> render(DecodedPoints out) {
        List<String> points = new ArrayList<>();
        for (int p = 0; p < out.count(); p++) {
            StringBuilder sb = new StringBuilder(out.metric(p)).append('{');
            for (int i = out.labelStart(p); i < out.labelEnd(p); i++) {
                if (i > out.labelStart(p)) {
                    sb.append(',');
                }
                sb.append(out.labelName(i))
                        .append("=\"")
                        .append(out.labelValue(i))
                        .append('"');
            }
            points.add(sb.append("} ")
                    .append(out.value(p))
                    .append(" @")
                    .append(out.timestampMs(p))
                    .toString());
        }
        return points;
    }
}
