package io.tsdbwriter.pipeline;

import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.amplify.SeriesCache;
import io.tsdbwriter.amplify.SeriesLimiter;
import io.tsdbwriter.encode.remotewrite.RemoteWriteEncoder;
import io.tsdbwriter.encode.vmimport.ImportLineEncoder;
import io.tsdbwriter.relabel.RelabelRules;
import io.tsdbwriter.wire.ByteBuf;
import io.tsdbwriter.wire.Output;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * JMH benchmark of the hot path decode → amplify → encode on node_exporter-shaped point records, single-threaded.
 * The score is <b>samples per second per core</b> (each operation is one sample; one invocation decodes
 * {@value #RECORDS} records of one point each and encodes M × N samples per point). {@code output} picks the encoder
 * behind the seam ({@link io.tsdbwriter.encode.SampleEncoder}): {@code import} (VictoriaMetrics JSON lines) or
 * {@code remote-write} (Prometheus Remote-Write protobuf; snappy compression happens per request on the writer
 * thread and is not part of this figure).
 *
 * <p>Run: {@code scripts/jmh.sh} (or {@code java -cp target/test-classes:<test classpath> org.openjdk.jmh.Main HotPath}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class HotPathBenchmark {

    static final int RECORDS = 1000;

    @Param({"12"})
    int timeMultiplier;

    @Param({"1"})
    int instanceMultiplier;

    @Param({"import", "remote-write"})
    String output;

    /** Ordered lanes (per-series order, DESIGN §6): 0 = unordered; &gt; 0 = each point's lane is chosen first. */
    @Param({"0", "8"})
    int lanes;

    /**
     * {@code --relabel-config}: none, or {@link #FIVE_RULES} (a drop that matches nothing, a labeldrop, a tag, a hashmod
     * and a replace; every series kept). Rules apply once per series on its cache miss; with them every point goes
     * through the series cache (no verbatim copy at N = 1). Run with {@code -p relabel=none,5-rules}.
     */
    @Param({"none"})
    String relabel;

    /**
     * {@code --max-hourly-series} and {@code --max-daily-series}: 0 = none; otherwise both limits, far above the
     * benchmark's 100 series (every sample written): what the check costs a run under its limit. With a limit every
     * point goes through the series cache, as with relabeling. Run with {@code -p seriesLimit=0,1000000}.
     */
    @Param({"0"})
    long seriesLimit;

    /** The 5-rule config of {@code relabel=5-rules}. */
    static final String FIVE_RULES =
            """
            - {source_labels: [__name__], regex: 'go_gc_.*', action: drop}
            - {regex: productKey, action: labeldrop}
            - {target_label: loadtest, replacement: '1'}
            - {source_labels: [instanceNo, cpu], target_label: shard, modulus: 4, action: hashmod}
            - {source_labels: [job], regex: '(.*)', target_label: job, replacement: 'amplified-$1'}
            """;

    private byte[][] records;
    private PointAmplifier amplifier;
    private ByteBuf out;
    /** The lanes chosen, summed: kept so the choice is not optimized away. */
    public long laneSum;

    @Setup
    public void setUp() {
        records = new byte[RECORDS][];
        String[] modes = {"idle", "user", "system", "iowait", "irq", "softirq", "steal", "nice"};
        for (int i = 0; i < RECORDS; i++) {
            String json =
                    "{\"metric\":\"node_cpu_seconds_total\",\"timestamp\":" + (1795300857000L + (i / 100) * 60_000L)
                            + ",\"value\":" + (12345.67 + i)
                            + ",\"dimensions\":{\"instanceNo\":\"node-0001\",\"cpu\":\"" + (i % 100 / 8)
                            + "\",\"mode\":\"" + modes[i % 8] + "\",\"job\":\"node\"},\"productKey\":\"node\"}";
            records[i] = json.getBytes(StandardCharsets.UTF_8);
        }
        AmplificationPlan plan = new AmplificationPlan(timeMultiplier, instanceMultiplier, 60_000);
        amplifier = Output.parse(output) == Output.REMOTE_WRITE
                ? new PointAmplifier(1 << 20, new RemoteWriteEncoder(plan), new SeriesCache(100_000))
                : new PointAmplifier(1 << 20, new ImportLineEncoder(plan), 100_000);
        if (relabel.equals("5-rules")) {
            amplifier.relabel(RelabelRules.parse(FIVE_RULES, "HotPathBenchmark"));
        } else if (!relabel.equals("none")) {
            throw new IllegalArgumentException("relabel must be none or 5-rules, got " + relabel);
        }
        if (seriesLimit > 0) {
            amplifier.seriesLimits(new SeriesLimiter(seriesLimit, seriesLimit));
        }
        out = new ByteBuf(1 << 20);
    }

    /** Operations = samples: RECORDS × M × N (the annotation assumes M=12, N=1; see {@link #samplesPerInvocation}). */
    @Benchmark
    @OperationsPerInvocation(RECORDS * 12)
    public int decodeAmplifyEncode() {
        int samples = 0;
        for (byte[] r : records) {
            amplifier.decode(r);
            for (int p = 0; p < amplifier.pointCount(); p++) {
                if (lanes > 0) {
                    laneSum +=
                            amplifier.lane(p, lanes); // the lane, then the point's series looked up with its key reused
                }
                samples += amplifier.encodePoint(p, out);
            }
            if (out.length() > (1 << 20)) {
                out.reset();
            }
        }
        out.reset();
        return samples;
    }

    /** Samples one invocation produces. */
    public int samplesPerInvocation() {
        return RECORDS * timeMultiplier * instanceMultiplier;
    }
}
