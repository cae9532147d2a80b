package io.tsdbwriter.decode.json;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.produce.NodeExporterFiles;
import io.tsdbwriter.produce.PointRecords;
import io.tsdbwriter.produce.RealInput;
import io.tsdbwriter.produce.SourcePoint;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The fast path of {@link PointDecoder} against Jackson alone ({@code new PointDecoder(max, false)}), record by
 * record: the same verdict (and the same reason when rejected), and for accepted records the same points —
 * metric, timestamp, the value's bits, labels and series key. Inputs: the real scrapes, hand-picked edge cases and
 * a few hundred thousand seeded mutations of valid records.
 */
class PointDecoderFastPathTest {

    private final PointDecoder fast = new PointDecoder(1 << 20, true);
    private final PointDecoder reference = new PointDecoder(1 << 20, false);
    private final DecodedPoints fastOut = new DecodedPoints();
    private final DecodedPoints referenceOut = new DecodedPoints();

    private void assertSameDecoding(byte[] record) {
        DecodeError expected = reference.decode(record, referenceOut);
        DecodeError actual = fast.decode(record, fastOut);
        String text = new String(record, StandardCharsets.UTF_8);
        assertThat(actual).as("verdict on %s", text).isEqualTo(expected);
        assertThat(fastOut.count()).as("points of %s", text).isEqualTo(referenceOut.count());
        for (int p = 0; p < referenceOut.count(); p++) {
            assertThat(fastOut.metric(p)).as("metric of %s", text).isEqualTo(referenceOut.metric(p));
            assertThat(fastOut.timestampMs(p)).as("timestamp of %s", text).isEqualTo(referenceOut.timestampMs(p));
            assertThat(Double.doubleToRawLongBits(fastOut.value(p)))
                    .as("value of %s: %s vs %s", text, fastOut.value(p), referenceOut.value(p))
                    .isEqualTo(Double.doubleToRawLongBits(referenceOut.value(p)));
            assertThat(labels(fastOut, p)).as("labels of %s", text).isEqualTo(labels(referenceOut, p));
            assertThat(key(fastOut, p)).as("series key of %s", text).isEqualTo(key(referenceOut, p));
        }
    }

    private void assertSameDecoding(String json) {
        assertSameDecoding(json.getBytes(StandardCharsets.UTF_8));
    }

    private static List<String> labels(DecodedPoints out, int p) {
        List<String> l = new ArrayList<>();
        for (int i = out.labelStart(p); i < out.labelEnd(p); i++) {
            l.add(out.labelName(i) + "=" + out.labelValue(i));
        }
        return l;
    }

    private static String key(DecodedPoints out, int p) {
        int n = out.seriesKey(p);
        return new String(out.seriesKeyBytes(), 0, n, StandardCharsets.ISO_8859_1);
    }

    private static List<byte[]> realRecords() throws Exception {
        List<SourcePoint> points =
                RealInput.load(NodeExporterFiles.all().subList(0, 2), "node-0001", "node", OptionalLong.empty());
        List<byte[]> records = new ArrayList<>();
        for (SourcePoint p : points) {
            records.add(PointRecords.encode(p));
        }
        records.add(PointRecords.encode(points.subList(0, 50)));
        return records;
    }

    @Test
    void realScrapesDecodeAlikeAndTakeTheFastPath() throws Exception {
        List<byte[]> records = realRecords();
        for (byte[] r : records) {
            assertSameDecoding(r);
        }
        FastPointScanner scanner = new FastPointScanner();
        int taken = 0;
        for (byte[] r : records) {
            if (scanner.decode(r, new DecodedPoints())) {
                taken++;
            }
        }
        assertThat(taken).as("records the fast path decodes itself").isEqualTo(records.size());
    }

    private static final long TS = 1_795_300_857_000L;

    @Test
    void numbersDecodeToTheSameDouble() {
        String[] numbers = {
            "0",
            "-0",
            "0.0",
            "-0.0",
            "1",
            "-1",
            "1.5",
            "1234.56",
            "0.1",
            "0.000123",
            "1e5",
            "1E5",
            "1e+5",
            "1e-5",
            "1.7976931348623157e308",
            "4.9e-324",
            "2.2250738585072014E-308",
            "123456789012345",
            "1234567890123456",
            "12345678901234567",
            "123456789012345678",
            "1234567890123456789",
            "9007199254740993",
            "9007199254740993.0",
            "0.30000000000000004",
            "3.141592653589793238462643383279",
            "1e22",
            "1e23",
            "1.5e-22",
            "1.5e-23",
            "123.456e10",
            "100000000000000000000",
            "1e400",
            "-1e400",
            "1e-400",
            "01",
            "1.",
            ".5",
            "-",
            "+1",
            "1e",
            "1e+",
            "--1",
            "0x10",
            "NaN",
            "Infinity",
            "1.0e0",
            "00",
            "-01.5",
            "0e0",
            "0.0000000000000000000000001",
            "99999999999999999",
            "1_0",
            "1" + "0".repeat(70),
            "0." + "0".repeat(70) + "1",
            "1.2.3",
            "1e5e5",
            "12345678901234.5",
            "1234567890123.45678"
        };
        for (String n : numbers) {
            assertSameDecoding("{\"metric\":\"m\",\"timestamp\":" + TS + ",\"value\":" + n + "}");
        }
        Random random = new Random(7);
        for (int i = 0; i < 20_000; i++) {
            double v =
                    switch (i % 4) {
                        case 0 -> random.nextDouble() * 1e6;
                        case 1 -> Double.longBitsToDouble(random.nextLong());
                        case 2 -> Math.round(random.nextDouble() * 1e9) / 1000.0;
                        default -> random.nextGaussian() * Math.pow(10, random.nextInt(40) - 20);
                    };
            if (Double.isFinite(v)) {
                assertSameDecoding("{\"metric\":\"m\",\"timestamp\":" + TS + ",\"value\":" + v + "}");
                assertSameDecoding("{\"metric\":\"m\",\"timestamp\":" + TS + ",\"value\":"
                        + new BigDecimal(v).toPlainString() + "}");
            }
        }
    }

    @Test
    void edgeCasesDecodeAlike() {
        String ok = "\"metric\":\"m\",\"timestamp\":" + TS + ",\"value\":1";
        String[] records = {
            "{" + ok + "}",
            " \t\r\n{" + ok + "} \n",
            "[{" + ok + "}]",
            "[ {" + ok + "} , {" + ok + "} ]",
            "[]",
            "[1]",
            "{}",
            "[{" + ok + "},]",
            "[{" + ok + "}",
            "{" + ok + "}x",
            "{" + ok + "}{}",
            "{" + ok + ",}",
            "{" + ok + "",
            "\uFEFF{" + ok + "}",
            "{" + ok + ",\"extra\":{\"a\":[1,2,{\"b\":null}]}}",
            "{" + ok + ",\"metric\":\"n\"}",
            "{" + ok + ",\"dimensions\":null}",
            "{" + ok + ",\"dimensions\":{}}",
            "{" + ok + ",\"dimensions\":[]}",
            "{" + ok + ",\"dimensions\":{\"a\":\"\"}}",
            "{" + ok + ",\"dimensions\":{\"a\":null}}",
            "{" + ok + ",\"dimensions\":{\"a\":null,\"a\":\"x\"}}",
            "{" + ok + ",\"dimensions\":{\"a\":\"\",\"a\":\"x\"}}",
            "{" + ok + ",\"dimensions\":{\"a\":\"1\",\"a\":\"2\"}}",
            "{" + ok + ",\"dimensions\":{\"a\":1}}",
            "{" + ok + ",\"dimensions\":{\"__a\":\"1\"}}",
            "{" + ok + ",\"dimensions\":{\"_a\":\"1\"}}",
            "{" + ok + ",\"dimensions\":{\"1a\":\"1\"}}",
            "{" + ok + ",\"dimensions\":{\"a-b\":\"1\"}}",
            "{" + ok + ",\"dimensions\":{\"a\":\"x\\\"y\"}}",
            "{" + ok + ",\"dimensions\":{\"a\":\"\\ud800\"}}",
            "{" + ok + ",\"dimensions\":{\"a\":\"h\u00e9\u4e2d\uD83D\uDE00\"}}",
            "{" + ok + ",\"dimensions\":{\"a\":\"tab\there\"}}",
            "{" + ok + ",\"dimensions\":{\"productKey\":\"d\"},\"productKey\":\"p\"}",
            "{" + ok + ",\"productKey\":\"p\",\"dimensions\":{\"productKey\":\"d\"}}",
            "{" + ok + ",\"dimensions\":{\"productKey\":\"d\"},\"productKey\":\"\"}",
            "{" + ok + ",\"dimensions\":{\"productKey\":\"d\"},\"productKey\":null}",
            "{" + ok + ",\"productKey\":1}",
            "{" + ok + ",\"productKey\":\"p\",\"productKey\":\"q\"}",
            "{" + ok + ",\"dimensions\":{\"z\":\"1\",\"b\":\"2\",\"a\":\"3\",\"instanceNo\":\"i\"}}",
            "{\"metric\":\"m\",\"value\":1}",
            "{\"metric\":\"m\",\"timestamp\":" + TS + "}",
            "{\"timestamp\":" + TS + ",\"value\":1}",
            "{\"metric\":\"\",\"timestamp\":" + TS + ",\"value\":1}",
            "{\"metric\":\"1m\",\"timestamp\":" + TS + ",\"value\":1}",
            "{\"metric\":\"a:b_c\",\"timestamp\":" + TS + ",\"value\":1}",
            "{\"metric\":null,\"timestamp\":" + TS + ",\"value\":1}",
            "{\"metric\":\"m\",\"timestamp\":1795300857,\"value\":1}",
            "{\"metric\":\"m\",\"timestamp\":-1,\"value\":1}",
            "{\"metric\":\"m\",\"timestamp\":" + TS + ".0,\"value\":1}",
            "{\"metric\":\"m\",\"timestamp\":\"" + TS + "\",\"value\":1}",
            "{\"metric\":\"m\",\"timestamp\":99999999999999999999,\"value\":1}",
            "{\"metric\":\"m\",\"timestamp\":0" + TS + ",\"value\":1}",
            "{\"metric\":\"m\",\"timestamp\":100000000000,\"value\":1}",
            "{\"metric\":\"m\",\"timestamp\":99999999999,\"value\":1}",
            "{\"metric\":\"m\",\"timestamp\":999999999999999999,\"value\":1}",
            "{\"metric\":\"m\",\"timestamp\":" + TS + ",\"value\":\"1\"}",
            "{\"metric\":\"m\",\"timestamp\":" + TS + ",\"value\":null}",
            "{\"metric\":\"m\",\"timestamp\":" + TS + ",\"value\":true}",
            "{\"metric\" : \"m\" , \"timestamp\" : " + TS + " , \"value\" : 1 }",
            "{\"met\\u0072ic\":\"m\",\"timestamp\":" + TS + ",\"value\":1}",
            "{\"metric\":\"m\",\"timestamp\":" + TS
                    + ",\"value\":1,\"dimensions\":{\"a\":\"b\"},\"dimensions\":{\"c\":\"d\"}}",
        };
        for (String r : records) {
            assertSameDecoding(r);
        }
    }

    @Test
    void malformedUtf8InAnyStringIsRejectedAlike() {
        String[] bad = {
            "\\xC3",
            "\\xC3\\x28",
            "\\xC0\\xAF",
            "\\xE0\\x80\\xAF",
            "\\xED\\xA0\\x80",
            "\\xF4\\x90\\x80\\x80",
            "\\xF8\\x88\\x80\\x80\\x80",
            "\\x80",
            "\\xE2\\x82",
            "\\xF0\\x9F\\x98",
            "\\xFF",
            "\\xC3\\xA9",
            "\\xF0\\x9F\\x98\\x80"
        };
        for (String b : bad) {
            byte[] seq = hex(b);
            for (String template : new String[] {
                "{\"metric\":\"m\",\"timestamp\":" + TS + ",\"value\":1,\"dimensions\":{\"a\":\"x@y\"}}",
                "{\"metric\":\"m\",\"timestamp\":" + TS + ",\"value\":1,\"productKey\":\"@\"}",
                "{\"metric\":\"m@\",\"timestamp\":" + TS + ",\"value\":1}",
                "{\"metric\":\"m\",\"timestamp\":" + TS + ",\"value\":1,\"dimensions\":{\"a@\":\"x\"}}",
                "{\"metric\":\"m\",\"timestamp\":" + TS + ",\"value\":1}@",
                "{\"metric\":\"m\",\"timestamp\":" + TS + ",\"value\":1,\"dimensions\":{\"a\":\"@"
            }) {
                byte[] t = template.getBytes(StandardCharsets.UTF_8);
                int at = template.indexOf('@');
                byte[] r = new byte[t.length - 1 + seq.length];
                System.arraycopy(t, 0, r, 0, at);
                System.arraycopy(seq, 0, r, at, seq.length);
                System.arraycopy(t, at + 1, r, at + seq.length, t.length - at - 1);
                assertSameDecoding(r);
            }
        }
    }

    @Test
    void everyByteAtEveryPlaceOfAWordDecodesAlike() {
        // the scanner reads strings eight bytes at a time: put each byte value at each place of two words, in a
        // field name, a metric name, a label name, a label value and the productKey
        String[] templates = {
            "{\"metric\":\"m\",\"timestamp\":" + TS + ",\"value\":1,\"dimensions\":{\"a\":\"@\"}}",
            "{\"metric\":\"m\",\"timestamp\":" + TS + ",\"value\":1,\"productKey\":\"@\"}",
            "{\"metric\":\"@\",\"timestamp\":" + TS + ",\"value\":1}",
            "{\"metric\":\"m\",\"timestamp\":" + TS + ",\"value\":1,\"dimensions\":{\"@\":\"x\"}}",
            "{\"@\":\"m\",\"timestamp\":" + TS + ",\"value\":1}"
        };
        FastPointScanner scanner = new FastPointScanner();
        for (String template : templates) {
            int at = template.indexOf('@');
            for (int place = 0; place < 2 * Long.BYTES; place++) {
                for (int v = 0; v < 256; v++) {
                    byte[] content = "abcdefghijklmnop".getBytes(StandardCharsets.US_ASCII);
                    content[place] = (byte) v;
                    byte[] t = template.getBytes(StandardCharsets.UTF_8);
                    byte[] r = new byte[t.length - 1 + content.length];
                    System.arraycopy(t, 0, r, 0, at);
                    System.arraycopy(content, 0, r, at, content.length);
                    System.arraycopy(t, at + 1, r, at + content.length, t.length - at - 1);
                    assertSameDecoding(r);
                    if (v >= 'a' && v <= 'z' && !template.startsWith("{\"@")) {
                        assertThat(scanner.decode(r, new DecodedPoints()))
                                .as("fast path takes %s", new String(r, StandardCharsets.UTF_8))
                                .isTrue();
                    }
                }
            }
        }
    }

    @Test
    void specialFlagsTheFirstQuoteBackslashControlOrHighByteOfAWord() {
        for (int place = 0; place < Long.BYTES; place++) {
            for (int v = 0; v < 256; v++) {
                byte[] word = "abcdefgh".getBytes(StandardCharsets.US_ASCII);
                word[place] = (byte) v;
                for (int after = place + 1; after < Long.BYTES; after++) {
                    word[after] = (byte) (after * 37 + v); // anything above the place may be flagged too
                }
                long w = ByteBuffer.wrap(word).order(ByteOrder.LITTLE_ENDIAN).getLong();
                boolean special = v == '"' || v == '\\' || v < 0x20 || v >= 0x80;
                long m = FastPointScanner.special(w);
                if (special) {
                    assertThat(Long.numberOfTrailingZeros(m) >>> 3)
                            .as("byte %02x at %d", v, place)
                            .isEqualTo(place);
                } else {
                    assertThat(m == 0 || Long.numberOfTrailingZeros(m) >>> 3 > place)
                            .as("byte %02x at %d", v, place)
                            .isTrue();
                }
            }
        }
    }

    private static byte[] hex(String escaped) {
        String[] parts = escaped.split("\\\\x");
        byte[] b = new byte[parts.length - 1];
        for (int i = 1; i < parts.length; i++) {
            b[i - 1] = (byte) Integer.parseInt(parts[i], 16);
        }
        return b;
    }

    @Test
    void mutatedRecordsDecodeAlike() throws Exception {
        List<byte[]> seeds = realRecords().subList(0, 200);
        byte[] alphabet = "{}[]\":,.-+eE0123456789 \\u\tnull\u00e9abc_".getBytes(StandardCharsets.UTF_8);
        Random random = new Random(42);
        for (int round = 0; round < 300_000; round++) {
            byte[] r = seeds.get(random.nextInt(seeds.size())).clone();
            int edits = 1 + random.nextInt(3);
            for (int e = 0; e < edits; e++) {
                int at = random.nextInt(r.length);
                switch (random.nextInt(3)) {
                    case 0 -> r[at] = alphabet[random.nextInt(alphabet.length)];
                    case 1 -> {
                        byte[] c = new byte[r.length - 1];
                        System.arraycopy(r, 0, c, 0, at);
                        System.arraycopy(r, at + 1, c, at, r.length - at - 1);
                        r = c.length == 0 ? r : c;
                    }
                    default -> {
                        byte[] c = new byte[r.length + 1];
                        System.arraycopy(r, 0, c, 0, at);
                        c[at] = alphabet[random.nextInt(alphabet.length)];
                        System.arraycopy(r, at, c, at + 1, r.length - at);
                        r = c;
                    }
                }
            }
            assertSameDecoding(r);
        }
    }
}
