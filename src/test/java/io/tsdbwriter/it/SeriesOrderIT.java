package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tsdbwriter.it.support.Components.PrometheusEndpoint;
import io.tsdbwriter.it.support.Components.PrometheusVersion;
import io.tsdbwriter.it.support.GoBuilds;
import io.tsdbwriter.it.support.PrometheusServer;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.ThanosReceive;
import io.tsdbwriter.it.support.WriterProcess;
import io.tsdbwriter.produce.PointRecords;
import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.verify.ExpectedSamples;
import io.tsdbwriter.verify.VerificationResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Per-series order on remote write (DESIGN §6 "Per-series order"): receivers with their defaults — Prometheus 3 with
 * no out-of-order window (Remote-Write 1.0 and 2.0) and Thanos receive ({@code --tsdb.out-of-order.time-window} 0s) —
 * get every sample of a topic keyed by host read by three segment readers per partition ({@code --parallelism 3},
 * segments of 500 records), amplified in time and across instances: exact read-back, nothing refused, every partition
 * committed at its end. The same job with {@code --ordering none} loses samples to the same receiver. Input that is
 * itself out of order (one series in two partitions) loses only the refused samples, with the cause and the fix named.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class SeriesOrderIT {

    static final int HOSTS = 3;
    static final int SCRAPES = 10;
    static final int P = 3;

    @RegisterExtension
    static final Stack stack = Stack.withKafka();

    static final AtomicInteger names = new AtomicInteger();
    /** Ten real scrapes of each of three hosts, scrape by scrape. */
    static List<SourcePoint> points;

    @BeforeAll
    static void loadInput() throws Exception {
        GoBuilds.built(
                PrometheusServer
                        .CURRENT_BINARY); // the test command may still build it: wait here, outside the tests' timeouts
        GoBuilds.built(
                ThanosReceive.BINARY); // the test command may still build it: wait here, outside the tests' timeouts
        List<SourcePoint> one = new ArrayList<>(Scenario.realPoints());
        one.sort(Comparator.comparingLong(SourcePoint::timestampMs));
        List<Long> times = one.stream()
                .map(SourcePoint::timestampMs)
                .distinct()
                .limit(SCRAPES)
                .toList();
        List<SourcePoint> all = new ArrayList<>();
        for (long t : times) {
            for (int h = 0; h < HOSTS; h++) {
                for (SourcePoint p : one) {
                    if (p.timestampMs() == t) {
                        all.add(onHost(p, h));
                    }
                }
            }
        }
        points = List.copyOf(all);
    }

    private static SourcePoint onHost(SourcePoint p, int host) {
        Map<String, String> labels = new LinkedHashMap<>(p.labels());
        labels.put(SourcePoint.INSTANCE_LABEL, host(host));
        return new SourcePoint(p.metric(), labels, p.productKey(), p.timestampMs(), p.value());
    }

    private static String host(int h) {
        return String.format("node-%04d", h + 1);
    }

    /** One record per point, keyed by its host, each host in a partition of its own. */
    private static ProducerRecord<byte[], byte[]> keyed(String topic, int partition, SourcePoint p) {
        return new ProducerRecord<>(
                topic, partition, p.instance().getBytes(StandardCharsets.UTF_8), PointRecords.encode(p));
    }

    private static Scenario.Fixture keyedTopic(String name, List<SourcePoint> input) {
        String topic = stack.createTopic(name + "-" + names.incrementAndGet(), HOSTS);
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (SourcePoint p : input) {
            records.add(keyed(topic, Integer.parseInt(p.instance().substring(5)) - 1, p));
        }
        stack.produce(records);
        return new Scenario.Fixture(topic, "g-" + topic, records.size());
    }

    private static WriterProcess writer(Scenario.Fixture f, String name, String url, int m, int n, String... more) {
        List<String> args = stack.runArgs("http://127.0.0.1:1", f.topic(), f.group(), m, n, P, more);
        args.addAll(List.of(
                "--output",
                "remote-write",
                "--remote-write-url",
                url,
                "--segment-size",
                "500",
                "--commit-interval",
                "500ms",
                "--stop-at-end"));
        return stack.writer(name, args);
    }

    /** The job with the default ordering: exit 0, every sample written and none refused, every partition committed at its end. */
    private static void orderedJob(String name, String url, int m, int n, String... more) throws Exception {
        Scenario.Fixture f = keyedTopic(name, points);
        Path summary = stack.path(name + ".json");
        List<String> args = new ArrayList<>(List.of("--summary-json", summary.toString()));
        args.addAll(List.of(more));
        WriterProcess w = writer(f, name, url, m, n, args.toArray(String[]::new));
        assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
        assertThat(w.output()).contains("ordering=series (").doesNotContain("out of order");
        JsonNode s = Scenario.summary(summary);
        long expected = points.size() * (long) m * n;
        assertThat(s.get("samples_expected").asLong()).isEqualTo(expected);
        assertThat(s.get("samples_written").asLong()).isEqualTo(expected);
        assertThat(s.get("samples_refused").asLong()).isZero();
        stack.assertCommittedAtEnd(f);
    }

    private static void assertReadBack(PrometheusEndpoint receiver, List<SourcePoint> input, int m, int n)
            throws Exception {
        ExpectedSamples expected = Scenario.expected(input, m, n);
        VerificationResult r = receiver.readBackWithin("{productKey=\"node\"}", expected, Duration.ofSeconds(60));
        assertThat(r.passed()).as(r.summary()).isTrue();
        assertThat(r.foundSamples()).isEqualTo(expected.sampleCount());
        assertThat(r.unexpectedSeries()).isZero();
    }

    private static PrometheusEndpoint defaultPrometheus3(String name) {
        stack.assumeAvailable(PrometheusVersion.CURRENT);
        return stack.startPrometheus(
                name,
                PrometheusVersion.CURRENT,
                null,
                true,
                "prometheus.WriteRequest",
                "io.prometheus.write.v2.Request");
    }

    @Test
    void prometheus3WithoutAnOutOfOrderWindowGetsEverySampleInRemoteWrite1AtM6N3() throws Exception {
        try (PrometheusEndpoint prom = defaultPrometheus3("order-prom3-v1")) {
            orderedJob("order-prom3-v1", prom.remoteWriteUrl(), 6, 3);
            assertReadBack(prom, points, 6, 3);
        }
    }

    @Test
    void prometheus3WithoutAnOutOfOrderWindowGetsEverySampleInRemoteWrite2AtM12N2() throws Exception {
        try (PrometheusEndpoint prom = defaultPrometheus3("order-prom3-v2")) {
            orderedJob("order-prom3-v2", prom.remoteWriteUrl(), 12, 2, "--remote-write-version", "2");
            assertReadBack(prom, points, 12, 2);
        }
    }

    @Test
    void thanosReceiveWithItsDefaultsGetsEverySample() throws Exception {
        String why = ThanosReceive.unavailable();
        Assumptions.assumeTrue(why == null, why);
        try (ThanosReceive thanos = stack.own(ThanosReceive.start(stack.path("order-thanos")))) {
            orderedJob("order-thanos", thanos.remoteWriteUrl(), 6, 2);
            assertReadBack(thanos, points, 6, 2);
        }
    }

    /** The control: the same parallel job without order loses samples to the same receiver, and is told why. */
    @Test
    void withoutOrderingTheSameJobLosesSamplesToADefaultPrometheus3() throws Exception {
        try (PrometheusEndpoint prom = defaultPrometheus3("order-none")) {
            Scenario.Fixture f = keyedTopic("order-none", points);
            Path summary = stack.path("order-none.json");
            WriterProcess w = writer(
                    f,
                    "order-none",
                    prom.remoteWriteUrl(),
                    6,
                    3,
                    "--ordering",
                    "none",
                    "--summary-json",
                    summary.toString());
            assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isEqualTo(3);
            assertThat(w.output())
                    .contains(
                            "--ordering none: a series' samples may reach the receiver out of timestamp order",
                            "out of order",
                            "use --ordering series");
            assertThat(Scenario.summary(summary).get("samples_refused").asLong())
                    .isPositive();
        }
    }

    /**
     * Input out of order by itself: host 1's scrapes 5–9 are written from partition 0 first; then partition 1 brings
     * host 2's ten scrapes and one point of a host-1 series from scrape 2, older than what the receiver holds of it.
     * Only that point's samples are refused, named with the cause (a series in several partitions) and the fix (key the
     * topic by series or host); host 2's samples in the same requests are stored; exit 3 (refused, no dead letter).
     */
    @Test
    void aSeriesInTwoPartitionsLosesOnlyItsRefusedSamplesWithTheCauseNamed() throws Exception {
        int m = 2;
        int n = 1;
        List<Long> times = points.stream()
                .map(SourcePoint::timestampMs)
                .distinct()
                .sorted()
                .toList();
        List<SourcePoint> first = points.stream()
                .filter(p -> p.instance().equals(host(0)) && p.timestampMs() >= times.get(5))
                .toList();
        List<SourcePoint> second = new ArrayList<>(
                points.stream().filter(p -> p.instance().equals(host(1))).toList());
        SourcePoint late = points.stream()
                .filter(p -> p.instance().equals(host(0)) && p.timestampMs() == times.get(2))
                .findFirst()
                .orElseThrow();
        second.add(second.size() / 2, late);
        try (PrometheusEndpoint prom = defaultPrometheus3("order-unkeyed")) {
            String topic = stack.createTopic("order-unkeyed-" + names.incrementAndGet(), 2);
            Scenario.Fixture f = new Scenario.Fixture(topic, "g-" + topic, first.size() + second.size());
            stack.produce(first.stream().map(p -> keyed(topic, 0, p)).toList());
            WriterProcess w1 = writer(f, "order-unkeyed-1", prom.remoteWriteUrl(), m, n);
            assertThat(w1.waitFor(Scenario.PROCESS_TIMEOUT)).as(w1.output()).isZero();

            stack.produce(second.stream().map(p -> keyed(topic, 1, p)).toList());
            Path summary = stack.path("order-unkeyed-2.json");
            WriterProcess w2 =
                    writer(f, "order-unkeyed-2", prom.remoteWriteUrl(), m, n, "--summary-json", summary.toString());
            assertThat(w2.waitFor(Scenario.PROCESS_TIMEOUT)).as(w2.output()).isEqualTo(3);
            assertThat(w2.output())
                    .contains(
                            "one series in several partitions",
                            "key the topic by series or host",
                            "Only the refused samples are lost");
            JsonNode s = Scenario.summary(summary);
            assertThat(s.get("samples_refused").asLong())
                    .as("only the late point's samples")
                    .isEqualTo((long) m * n);
            assertThat(s.get("samples_written").asLong()).isEqualTo((long) (second.size() - 1) * m * n);
            stack.assertCommittedAtEnd(f);

            List<SourcePoint> stored = new ArrayList<>(first);
            second.remove(late);
            stored.addAll(second);
            assertReadBack(prom, stored, m, n);
        }
    }
}
