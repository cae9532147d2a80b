package io.tsdbwriter.decode;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.util.JsonFormat;
import io.opentelemetry.proto.collector.metrics.v1.ExportMetricsServiceRequest;
import io.opentelemetry.proto.common.v1.InstrumentationScope;
import io.opentelemetry.proto.metrics.v1.Gauge;
import io.opentelemetry.proto.metrics.v1.Metric;
import io.opentelemetry.proto.metrics.v1.NumberDataPoint;
import io.opentelemetry.proto.metrics.v1.ResourceMetrics;
import io.opentelemetry.proto.metrics.v1.ScopeMetrics;
import io.opentelemetry.proto.resource.v1.Resource;
import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.amplify.SeriesCache;
import io.tsdbwriter.decode.influx.InfluxDecoder;
import io.tsdbwriter.decode.prometheus.PrometheusTextParser;
import io.tsdbwriter.encode.vmimport.ImportLineEncoder;
import io.tsdbwriter.it.support.OtlpRequests;
import io.tsdbwriter.pipeline.PointAmplifier;
import io.tsdbwriter.pipeline.RecordDecoders;
import io.tsdbwriter.produce.NodeExporterFiles;
import io.tsdbwriter.produce.PointRecords;
import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.wire.ByteBuf;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.xerial.snappy.Snappy;

/**
 * JMH benchmark of each input format's decoder on the same node_exporter scrapes (the first two files of
 * {@code examples/data}, about 1000 samples), single-threaded: {@code decode} decodes every record, {@code relay}
 * also encodes each point as at M = N = 1 (decode → amplify → encode, the writer's hot path). The {@code samples}
 * secondary result is <b>samples per second per core</b>. Records hold 50 lines or series (prometheus: one scrape;
 * json: arrays of 50 points); influx lines are one field each ({@code metric,labels… gauge=v ts});
 * {@code promremotewrite2} is {@code promremotewrite} with remote write 2.0 bodies (a symbols table per record).
 *
 * <p>Run: {@code bash scripts/jmh-decoders.sh} (extra arguments go to JMH, e.g. {@code -p format=otlp}) (short runs;
 * the machine is shared).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class DecoderBenchmark {

    public static final int LINES_PER_RECORD = 50;

    /** An input format, or {@code promremotewrite2}: {@code --input-format promremotewrite} with 2.0 bodies. */
    @Param({
        "json",
        "influx",
        "promremotewrite",
        "promremotewrite2",
        "prometheus",
        "jsonline",
        "graphite",
        "otlp",
        "otlp-json"
    })
    String format;

    private byte[][] records;
    private long[] kafkaTimestamps;
    private PointAmplifier amplifier;
    private ByteBuf out;

    /** Samples decoded (reported per second: samples/s per core). */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Samples {
        public long samples;

        @Setup(Level.Iteration)
        public void reset() {
            samples = 0;
        }
    }

    @Setup
    public void setUp() throws IOException {
        boolean v2 = format.equals("promremotewrite2");
        InputFormat f = v2 ? InputFormat.PROMREMOTEWRITE : InputFormat.parse(format);
        List<PrometheusTextParser.Sample> samples = new ArrayList<>();
        List<Long> times = new ArrayList<>();
        List<byte[]> scrapes = new ArrayList<>();
        for (Path file : NodeExporterFiles.all().subList(0, 2)) {
            long ts = Long.parseLong(file.getFileName().toString().replaceAll("\\D", "")) * 1000;
            for (PrometheusTextParser.Sample s :
                    PrometheusTextParser.parse(file).samples()) {
                samples.add(s);
                times.add(ts);
            }
            scrapes.add(Files.readAllBytes(file));
        }
        List<byte[]> recs = new ArrayList<>();
        List<Long> stamps = new ArrayList<>();
        if (f == InputFormat.PROMETHEUS) {
            recs.addAll(scrapes);
            stamps.add(times.get(0));
            stamps.add(times.get(times.size() - 1));
        } else {
            for (int i = 0; i < samples.size(); i += LINES_PER_RECORD) {
                int to = Math.min(samples.size(), i + LINES_PER_RECORD);
                recs.add(
                        v2
                                ? remoteWrite2(samples.subList(i, to), times.subList(i, to))
                                : encode(f, samples.subList(i, to), times.subList(i, to)));
                stamps.add(times.get(i));
            }
        }
        records = recs.toArray(new byte[0][]);
        kafkaTimestamps = stamps.stream().mapToLong(Long::longValue).toArray();
        AmplificationPlan plan = new AmplificationPlan(1, 1, 60_000, "instance");
        amplifier = new PointAmplifier(
                RecordDecoders.create(f, 64 << 20, InfluxDecoder.Precision.NS),
                new ImportLineEncoder(plan),
                new SeriesCache(100_000));
        out = new ByteBuf(1 << 20);
        for (int i = 0; i < records.length; i++) {
            Rejections r = amplifier.decode(records[i], kafkaTimestamps[i]);
            if (r.total() > 0) {
                throw new IllegalStateException(
                        format + " record " + i + " refused: " + r.first() + " " + r.firstDetail());
            }
        }
    }

    @Benchmark
    public int decode(Samples counter) {
        int n = 0;
        for (int i = 0; i < records.length; i++) {
            amplifier.decode(records[i], kafkaTimestamps[i]);
            n += amplifier.pointCount();
        }
        counter.samples += n;
        return n;
    }

    @Benchmark
    public int relay(Samples counter) {
        int n = 0;
        for (int i = 0; i < records.length; i++) {
            amplifier.decode(records[i], kafkaTimestamps[i]);
            for (int p = 0; p < amplifier.pointCount(); p++) {
                n += amplifier.encodePoint(p, out);
            }
            if (out.length() > (1 << 20)) {
                out.reset();
            }
        }
        out.reset();
        counter.samples += n;
        return n;
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /** The samples as one snappy-compressed remote write 2.0 {@code Request}: a series per sample. */
    public static byte[] remoteWrite2(List<PrometheusTextParser.Sample> samples, List<Long> times) throws IOException {
        RemoteWriteBodyWriter.Series[] series = new RemoteWriteBodyWriter.Series[samples.size()];
        for (int i = 0; i < samples.size(); i++) {
            PrometheusTextParser.Sample s = samples.get(i);
            List<String> labels = new ArrayList<>(List.of("__name__", s.metricName()));
            s.labels().forEach((k, v) -> {
                labels.add(k);
                labels.add(v);
            });
            series[i] =
                    RemoteWriteBodyWriter.series(labels.toArray(new String[0])).sample(s.value(), times.get(i));
        }
        return Snappy.compress(RemoteWriteBodyWriter.v2(series));
    }

    /** The samples as one record of format {@code f}. */
    public static byte[] encode(InputFormat f, List<PrometheusTextParser.Sample> samples, List<Long> times)
            throws IOException {
        StringBuilder sb = new StringBuilder();
        switch (f) {
            case JSON -> {
                List<SourcePoint> points = new ArrayList<>();
                for (int i = 0; i < samples.size(); i++) {
                    PrometheusTextParser.Sample s = samples.get(i);
                    points.add(new SourcePoint(s.metricName(), s.labels(), "node", times.get(i), s.value()));
                }
                return PointRecords.encode(points);
            }
            case INFLUX -> {
                for (int i = 0; i < samples.size(); i++) {
                    PrometheusTextParser.Sample s = samples.get(i);
                    sb.append(s.metricName());
                    s.labels().forEach((k, v) -> sb.append(',')
                            .append(k)
                            .append('=')
                            .append(v.replace(" ", "\\ ").replace(",", "\\,").replace("=", "\\=")));
                    sb.append(" gauge=")
                            .append(s.value())
                            .append(' ')
                            .append(times.get(i) * 1_000_000L)
                            .append('\n');
                }
            }
            case GRAPHITE -> {
                for (int i = 0; i < samples.size(); i++) {
                    PrometheusTextParser.Sample s = samples.get(i);
                    sb.append(s.metricName());
                    s.labels().forEach((k, v) -> sb.append(';')
                            .append(k)
                            .append('=')
                            .append(v.replace(' ', '_').replace(';', '_')));
                    sb.append(' ')
                            .append(s.value())
                            .append(' ')
                            .append(times.get(i) / 1000)
                            .append('\n');
                }
            }
            case JSONLINE -> {
                for (int i = 0; i < samples.size(); i++) {
                    PrometheusTextParser.Sample s = samples.get(i);
                    ObjectNode line = JSON.createObjectNode();
                    ObjectNode metric = line.putObject("metric");
                    metric.put("__name__", s.metricName());
                    s.labels().forEach(metric::put);
                    line.putArray("values").add(s.value());
                    line.putArray("timestamps").add(times.get(i));
                    sb.append(JSON.writeValueAsString(line)).append('\n');
                }
            }
            case PROMREMOTEWRITE -> {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                CodedOutputStream w = CodedOutputStream.newInstance(bytes);
                for (int i = 0; i < samples.size(); i++) {
                    PrometheusTextParser.Sample s = samples.get(i);
                    Map<String, String> labels = new LinkedHashMap<>();
                    labels.put("__name__", s.metricName());
                    labels.putAll(s.labels());
                    ByteArrayOutputStream ts = new ByteArrayOutputStream();
                    CodedOutputStream t = CodedOutputStream.newInstance(ts);
                    for (Map.Entry<String, String> e : labels.entrySet()) {
                        ByteArrayOutputStream l = new ByteArrayOutputStream();
                        CodedOutputStream lo = CodedOutputStream.newInstance(l);
                        lo.writeString(1, e.getKey());
                        lo.writeString(2, e.getValue());
                        lo.flush();
                        t.writeByteArray(1, l.toByteArray());
                    }
                    ByteArrayOutputStream sm = new ByteArrayOutputStream();
                    CodedOutputStream so = CodedOutputStream.newInstance(sm);
                    so.writeDouble(1, s.value());
                    so.writeInt64(2, times.get(i));
                    so.flush();
                    t.writeByteArray(2, sm.toByteArray());
                    t.flush();
                    w.writeByteArray(1, ts.toByteArray());
                }
                w.flush();
                return Snappy.compress(bytes.toByteArray());
            }
            case OTLP, OTLP_JSON -> {
                // as the Collector's Prometheus receiver shapes a scrape: one resource and scope, a metric per name,
                // the samples' labels as data point attributes
                Map<String, Gauge.Builder> gauges = new LinkedHashMap<>();
                for (int i = 0; i < samples.size(); i++) {
                    PrometheusTextParser.Sample s = samples.get(i);
                    NumberDataPoint.Builder dp = NumberDataPoint.newBuilder()
                            .setTimeUnixNano(times.get(i) * 1_000_000L)
                            .setAsDouble(s.value());
                    s.labels().forEach((k, v) -> dp.addAttributes(OtlpRequests.attr(k, v)));
                    gauges.computeIfAbsent(s.metricName(), k -> Gauge.newBuilder())
                            .addDataPoints(dp);
                }
                ScopeMetrics.Builder scope = ScopeMetrics.newBuilder()
                        .setScope(InstrumentationScope.newBuilder()
                                .setName("prometheusreceiver")
                                .setVersion("0.140.0"));
                gauges.forEach((name, g) ->
                        scope.addMetrics(Metric.newBuilder().setName(name).setGauge(g)));
                ExportMetricsServiceRequest request = ExportMetricsServiceRequest.newBuilder()
                        .addResourceMetrics(ResourceMetrics.newBuilder()
                                .setResource(Resource.newBuilder()
                                        .addAttributes(OtlpRequests.attr("service.name", "node_exporter"))
                                        .addAttributes(OtlpRequests.attr("host.name", "node-a")))
                                .addScopeMetrics(scope))
                        .build();
                return f == InputFormat.OTLP
                        ? request.toByteArray()
                        : JsonFormat.printer().print(request).getBytes(StandardCharsets.UTF_8);
            }
            default -> throw new UncheckedIOException(new IOException("no encoder for " + f));
        }
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }
}
