package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tsdbwriter.it.Scenario.Fixture;
import io.tsdbwriter.it.support.ChildServer;
import io.tsdbwriter.it.support.Components.VmEndpoint;
import io.tsdbwriter.it.support.GoBuilds;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.WriterProcess;
import io.tsdbwriter.produce.PointRecords;
import io.tsdbwriter.produce.SourcePoint;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import okhttp3.OkHttpClient;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code --relabel-config} end to end, against an oracle that is not ours (issue 54, item 2): vmagent
 * ({@code -remoteWrite.relabelConfig}, the same file), the release of {@code victoriametrics.current.version} built by
 * {@code scripts/lib.sh ensure_vmagent_current} (Debian's 1.79.5 predates {@code keepequal}/{@code dropequal}).
 *
 * <p>The same held series (the 20 real node_exporter scrapes in one Kafka topic, M = N = 1) go through two writer
 * groups: (a) with {@code --relabel-config FILE} into VictoriaMetrics A; (b) without relabeling into vmagent's
 * {@code /api/v1/import}, which relabels with {@code FILE} and remote-writes into VictoriaMetrics B. Once vmagent has
 * received every sample and its queue is empty, and B holds what vmagent kept, both stores are exported and compared
 * series for series (labels exactly) and sample for sample. The config uses every action but {@code hashmod}
 * (vmagent hashes with xxhash, Prometheus with MD5: docs/design.md §11). What else is asserted: a few rules' series
 * explicitly, and the writer's {@code relabel_dropped} equals both the points of the series the config drops (counted
 * here from the source points) and vmagent's {@code vmagent_remotewrite_global_relabel_metrics_dropped_total}.
 *
 * <p>vmagent differs from Prometheus' {@code model/relabel} outside the actions, by its own code (v1.150.0): after the
 * rules it removes every label whose name starts with {@code __} but {@code __name__}
 * ({@code lib/promrelabel.FinalizeLabels}), and it anchors a regex as {@code ^(?:…)$} without {@code (?s)}, so
 * {@code .} does not match a newline. The config removes its {@code __tmp_} labels itself and the real scrapes have
 * no newline in a value, so neither shows here. Without the vmagent binary the test is skipped, except under
 * {@code CI=true}, where it fails.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class RelabelVmagentIT {

    @RegisterExtension
    static final Stack stack = Stack.withKafka();

    /** Every action but hashmod, on what the real scrapes hold (metric names, cpu, mode, device, fstype, mountpoint). */
    static final String CONFIG =
            """
            # drop: the Go runtime's and the exporter's own HTTP handler's series
            - {source_labels: [__name__], regex: 'go_.*|promhttp_.*', action: drop}
            # keep: the node_ and process_ series only
            - {source_labels: [__name__], regex: '(node|process)_.+', action: keep}
            # replace (a constant) into a temporary label, then dropequal: CPU 0's series go
            - {target_label: __tmp_zero, replacement: '0'}
            - {source_labels: [cpu], target_label: __tmp_zero, action: dropequal}
            # replace with a capture group, then keepequal: only these devices stay (no device: '' = '', kept)
            - {source_labels: [device], regex: '(eth0|lo|vda|/dev/vda)', target_label: __tmp_dev, replacement: '$1'}
            - {source_labels: [device], target_label: __tmp_dev, action: keepequal}
            # labelmap: fstype and mountpoint copied to fs_fstype and fs_mountpoint
            - {regex: '(fstype|mountpoint)', replacement: 'fs_$1', action: labelmap}
            # labeldrop: the temporary labels, the originals of the copies, two labels of node_network_info
            - {regex: '__tmp_.*|fstype|mountpoint|address|broadcast', action: labeldrop}
            # uppercase: mode copied upper-cased
            - {source_labels: [mode], target_label: MODE, action: uppercase}
            # lowercase: every metric name (node_memory_Active_bytes -> node_memory_active_bytes)
            - {source_labels: [__name__], target_label: __name__, action: lowercase}
            # replace with named groups and a separator: core="node-0001/cpu1"
            - {source_labels: [instanceNo, cpu], separator: ':', regex: '(?P<inst>[^:]+):(?P<n>[0-9]+)',
               target_label: core, replacement: '${inst}/cpu${n}'}
            # replace renaming a metric: node_..._total -> node_..._count
            - {source_labels: [__name__], regex: 'node_(.+)_total', target_label: __name__, replacement: 'node_${1}_count'}
            # labelkeep: names of letters only, __name__ and the fs_ copies (drops the info series' id_like, pretty_name, ...)
            - {regex: '__name__|[a-zA-Z]+|fs_.+', action: labelkeep}
            # replace (a constant): tag the load
            - {target_label: loadtest, replacement: '1'}
            """;

    /** The series the config drops, as its drop, keep, dropequal and keepequal rules say (for relabel_dropped). */
    static boolean dropped(SourcePoint p) {
        String name = p.metric();
        String cpu = p.labels().get("cpu");
        String device = p.labels().get("device");
        return name.matches("go_.*|promhttp_.*")
                || !name.matches("(node|process)_.+")
                || "0".equals(cpu)
                || device != null && !device.matches("eth0|lo|vda|/dev/vda");
    }

    static final Path VMAGENT = Path.of(System.getProperty(
            "tsdbwriter.vmagent.binary",
            Path.of(System.getProperty("user.home"), ".cache/tsdb-writer/bin/vmagent")
                    .toString()));

    @Test
    void everyActionButHashmodGivesWhatVmagentGivesSeriesForSeriesAndSampleForSample() throws Exception {
        assumeVmagent();
        List<SourcePoint> points = Scenario.realPoints();
        Fixture f = stack.realInput("relabel", 3, points);
        Path config = stack.path("relabel.yml");
        Files.writeString(config, CONFIG);
        VmEndpoint vmA = stack.startVm("vm-a");
        VmEndpoint vmB = stack.startVm("vm-b");
        ChildServer vmagent = stack.own(ChildServer.start(
                VMAGENT,
                stack.path("vmagent"),
                "vmagent",
                false,
                new OkHttpClient(),
                port -> List.of(
                        "-remoteWrite.url=" + vmB.url() + "/api/v1/write",
                        "-remoteWrite.relabelConfig=" + config,
                        "-remoteWrite.tmpDataPath=" + stack.path("vmagent").resolve("queue"),
                        "-remoteWrite.flushInterval=200ms")));

        Path summaryA = stack.path("a.json");
        Path summaryB = stack.path("b.json");
        WriterProcess a = stack.writer(
                "writer-a",
                stack.runArgs(
                        vmA.url(),
                        f.topic(),
                        f.group() + "-a",
                        1,
                        1,
                        1,
                        "--stop-at-end",
                        "--summary-json",
                        summaryA.toString(),
                        "--relabel-config",
                        config.toString()));
        WriterProcess b = stack.writer(
                "writer-b",
                stack.runArgs(
                        vmagent.url(),
                        f.topic(),
                        f.group() + "-b",
                        1,
                        1,
                        1,
                        "--stop-at-end",
                        "--summary-json",
                        summaryB.toString(),
                        "--tsdb-metrics-url",
                        "none"));
        assertThat(a.waitFor(Scenario.PROCESS_TIMEOUT)).as(a.output()).isZero();
        assertThat(b.waitFor(Scenario.PROCESS_TIMEOUT)).as(b.output()).isZero();

        long droppedPoints = points.stream().filter(RelabelVmagentIT::dropped).count();
        JsonNode sa = Scenario.summary(summaryA);
        JsonNode sb = Scenario.summary(summaryB);
        assertThat(sa.get("relabel_dropped").asLong())
                .as("relabel_dropped: the points of the series the config drops")
                .isEqualTo(droppedPoints)
                .isPositive()
                .isLessThan(points.size());
        assertThat(sa.get("samples_written").asLong())
                .isEqualTo(sa.get("samples_expected").asLong())
                .isEqualTo(points.size() - droppedPoints);
        assertThat(sb.get("relabel_dropped").asLong()).isZero();
        assertThat(sb.get("samples_written").asLong()).isEqualTo(points.size());
        stack.assertCommittedAtEnd(new Fixture(f.topic(), f.group() + "-a", f.records()));
        stack.assertCommittedAtEnd(new Fixture(f.topic(), f.group() + "-b", f.records()));

        // vmagent: everything received, the rules' drops counted as ours, its queue empty; then B holds what it kept
        long kept = points.size() - droppedPoints;
        Map<String, Double> m = awaitVmagent(vmagent, points.size(), Duration.ofSeconds(30));
        assertThat(m.get("vmagent_remotewrite_global_relabel_metrics_dropped_total"))
                .as("vmagent's drops")
                .isEqualTo((double) droppedPoints);
        Map<SortedMap<String, String>, List<String>> storeB =
                samples(vmB.awaitExport(ALL, l -> sampleCount(l) >= kept, Duration.ofSeconds(30)));
        Map<SortedMap<String, String>, List<String>> storeA =
                samples(vmA.awaitExport(ALL, l -> sampleCount(l) >= kept, Duration.ofSeconds(30)));

        assertThat(storeA.values().stream().mapToInt(List::size).sum())
                .as("samples in A")
                .isEqualTo(kept);
        assertThat(byText(storeA))
                .as(
                        "VictoriaMetrics A (the writer relabels) against B (vmagent relabels), series for series, sample for sample")
                .isEqualTo(byText(storeB));
        // no two source series relabeled into one: the series in A are the source series less the dropped ones
        Set<String> sourceSeries = new HashSet<>();
        Set<String> droppedSeries = new HashSet<>();
        for (SourcePoint p : points) {
            String key = p.metric() + new TreeMap<>(p.labels());
            sourceSeries.add(key);
            if (dropped(p)) {
                droppedSeries.add(key);
            }
        }
        assertThat(storeA).as("series in A").hasSize(sourceSeries.size() - droppedSeries.size());
        assertThat(droppedPoints)
                .as("relabel_dropped: 20 scrapes of each dropped series")
                .isEqualTo(20L * droppedSeries.size());

        System.err.printf(
                "RelabelVmagentIT: %d source points of %d series, %d series dropped by the rules; %d series, %d samples"
                        + " equal in A and B%n",
                points.size(), sourceSeries.size(), droppedSeries.size(), storeA.size(), kept);

        // a few rules, explicitly
        Set<String> names = new HashSet<>();
        storeA.keySet().forEach(s -> names.add(s.get("__name__")));
        assertThat(names)
                .noneMatch(n -> n.startsWith("go_")
                        || n.startsWith("promhttp_")
                        || n.matches("node_.+_total")
                        || !n.equals(n.toLowerCase()))
                .contains("node_memory_active_bytes", "node_cpu_seconds_count", "node_filesystem_avail_bytes");
        assertThat(storeA.keySet()).allSatisfy(s -> {
            assertThat(s)
                    .containsEntry("loadtest", "1")
                    .doesNotContainKeys("fstype", "mountpoint", "address", "pretty_name")
                    .doesNotContainEntry("cpu", "0");
            assertThat(s.keySet()).noneMatch(k -> k.startsWith("__tmp"));
            assertThat(s.getOrDefault("device", "eth0")).isIn("eth0", "lo", "vda", "/dev/vda");
        });
        SortedMap<String, String> idle = new TreeMap<>(Map.of(
                "__name__",
                "node_cpu_seconds_count",
                "cpu",
                "1",
                "mode",
                "idle",
                "MODE",
                "IDLE",
                "core",
                "node-0001/cpu1",
                "instanceNo",
                "node-0001",
                "productKey",
                "node",
                "loadtest",
                "1"));
        assertThat(storeA).containsKey(idle);
        assertThat(storeA.get(idle)).hasSize(20);
        assertThat(storeA.keySet()).anySatisfy(s -> assertThat(s)
                .containsEntry("__name__", "node_filesystem_avail_bytes")
                .containsEntry("fs_fstype", "ext4")
                .containsEntry("fs_mountpoint", "/"));
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private static final String ALL = "{__name__=~\".+\"}";
    private static final Pattern METRIC_LINE = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{[^}]*})? ([^ ]+)$");

    /**
     * vmagent's own metrics once it received {@code rows} rows through {@code /api/v1/import}, pushed them all through
     * its global relabeling and holds nothing in its queue (bounded by {@code timeout}; asserted).
     */
    private static Map<String, Double> awaitVmagent(ChildServer vmagent, long rows, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, Double> m;
        OkHttpClient http = new OkHttpClient();
        do {
            m = new TreeMap<>();
            try (okhttp3.Response r = http.newCall(new okhttp3.Request.Builder()
                            .url(vmagent.url() + "/metrics")
                            .build())
                    .execute()) {
                for (String line : r.body().string().split("\n")) {
                    Matcher x = METRIC_LINE.matcher(line);
                    if (x.matches()) {
                        m.merge(x.group(1), Double.parseDouble(x.group(3)), Double::sum);
                    }
                }
            }
            if (m.getOrDefault("vmagent_remotewrite_global_rows_pushed_before_relabel_total", 0.0) >= rows
                    && m.getOrDefault("vmagent_remotewrite_pending_data_bytes", 1.0) == 0
                    && m.getOrDefault("vmagent_remotewrite_pending_inmemory_blocks", 1.0) == 0) {
                break;
            }
            Thread.sleep(200);
        } while (System.nanoTime() < deadline);
        assertThat(m.get("vmagent_rows_inserted_total"))
                .as("vmagent's rows received through /api/v1/import")
                .isEqualTo((double) rows);
        assertThat(m.get("vmagent_remotewrite_global_rows_pushed_before_relabel_total"))
                .isEqualTo((double) rows);
        assertThat(m.get("vmagent_remotewrite_pending_data_bytes"))
                .as("vmagent's queue")
                .isZero();
        return m;
    }

    /** The store keyed by its series' text ({@code {__name__=..., a=...}}), sorted: a readable difference. */
    private static TreeMap<String, List<String>> byText(Map<SortedMap<String, String>, List<String>> store) {
        TreeMap<String, List<String>> out = new TreeMap<>();
        store.forEach((k, v) -> out.put(k.toString(), v));
        return out;
    }

    private static long sampleCount(List<String> lines) {
        return samples(lines).values().stream().mapToLong(List::size).sum();
    }

    /** Export lines as series (labels sorted) to their samples ({@code timestamp=value}, in time order). */
    private static Map<SortedMap<String, String>, List<String>> samples(List<String> lines) {
        Map<SortedMap<String, String>, List<String>> out = new HashMap<>();
        for (String line : lines) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode n;
            try {
                n = PointRecords.objectMapper().readTree(line);
            } catch (IOException e) {
                throw new AssertionError("not an export line: " + line, e);
            }
            SortedMap<String, String> labels = new TreeMap<>();
            for (Iterator<Map.Entry<String, JsonNode>> it = n.get("metric").fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                labels.put(e.getKey(), e.getValue().asText());
            }
            TreeMap<Long, String> byTime = new TreeMap<>();
            for (int i = 0; i < n.get("timestamps").size(); i++) {
                byTime.put(
                        n.get("timestamps").get(i).asLong(),
                        n.get("values").get(i).asText());
            }
            List<String> s = new ArrayList<>();
            byTime.forEach((t, v) -> s.add(t + "=" + v));
            assertThat(out.put(labels, s))
                    .as("one export line per series: %s", labels)
                    .isNull();
        }
        return out;
    }

    private static void assumeVmagent() {
        if (!GoBuilds.built(VMAGENT)) {
            String why = VMAGENT
                    + " is missing: run scripts/test.sh (phase \"build vmagent\", scripts/lib.sh ensure_vmagent_current)";
            assertThat("true".equals(System.getenv("CI")))
                    .as(why + " (CI=true: a missing vmagent fails the test)")
                    .isFalse();
            Assumptions.assumeTrue(false, why);
        }
    }
}
