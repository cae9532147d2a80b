package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.cli.Main;
import io.tsdbwriter.it.support.Components.VmEndpoint;
import io.tsdbwriter.it.support.RunsAlone;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.produce.NodeExporterFiles;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code tsdb-writer capacity --query-rate} against a real VictoriaMetrics: every step runs the read load in its
 * measured window and reports it (queries/s, latency, errors, timeouts, the target's selects), and a target whose
 * read path cannot serve the load (one concurrent select, 10 ms of queueing, heavy 24 h queries at 100/s, twice what
 * one slot serves where each takes 20-40 ms) gets the verdict read-path. Short: two steps of 15 s, then one of 20 s.
 */
@RunsAlone
class CapacityReadsIT {

    @RegisterExtension
    static final Stack stack = Stack.withKafka().withVm();

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void everyStepReportsItsReadLoadsLatenciesAndErrors() throws Exception {
        Path csv = stack.path("ok/capacity.csv");
        Run r = capacity(
                "reads-ok",
                stack.vmUrl(),
                csv,
                "--query-rate",
                "4",
                "--start-input-rate",
                "500",
                "--step-factor",
                "2",
                "--step-duration",
                "15s",
                "--warm-up",
                "5s",
                "--max-steps",
                "2",
                "--refine-steps",
                "0");
        assertThat(r.output())
                .contains(
                        "read load: 4.000 queries/s in each step's measured window, round-robin over",
                        "to " + stack.vmUrl() + "/api/v1/query_range",
                        "read load (--query-rate; a step passes only when its reads pass too):",
                        "lost: nothing");
        List<Map<String, String>> rows = csv(csv);
        assertThat(rows).hasSize(2);
        assertThat(rows).allSatisfy(row -> {
            assertThat(row.get("query_offered_per_second")).as(row.toString()).isNotEmpty();
            assertThat(Double.parseDouble(row.get("query_done_per_second")))
                    .as(row.toString())
                    .isPositive();
            assertThat(Double.parseDouble(row.get("query_p99_seconds")))
                    .as(row.toString())
                    .isPositive()
                    .isFinite();
            assertThat(row.get("query_errors")).as(row.toString()).isEqualTo("0");
            assertThat(row.get("query_timeouts")).as(row.toString()).isEqualTo("0");
            // the single node exports its select limiter: -search.maxConcurrentRequests' default, 2 x its cores at
            // least
            assertThat(Double.parseDouble(row.get("selects_capacity")))
                    .as(row.toString())
                    .isGreaterThanOrEqualTo(1);
            assertThat(row.get("limited_by")).isNotEqualTo("read-path");
        });
    }

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aReadPathThatCannotServeTheLoadIsTheVerdict() throws Exception {
        VmEndpoint vm =
                stack.startVm("vm-one-select", "-search.maxConcurrentRequests=1", "-search.maxQueueDuration=10ms");
        Path queries = stack.path("heavy.promql");
        Files.createDirectories(queries.getParent());
        // every node_exporter series over the whole range, point by point, and a quantile over each
        Files.writeString(
                queries,
                """
                # heavy: every series of the writer's input, raw and as a quantile over the range
                {__name__=~"node_.+"}
                quantile_over_time(0.99, {__name__=~"node_.+"}[$__range])
                """);
        Path csv = stack.path("limited/capacity.csv");
        Run r = capacity(
                "reads-limited",
                vm.url(),
                csv,
                "--query-rate",
                "100",
                "--queries",
                queries.toString(),
                "--start-input-rate",
                "500",
                "--step-duration",
                "20s",
                "--warm-up",
                "5s",
                "--max-steps",
                "1",
                "--refine-steps",
                "0");
        assertThat(r.exit()).as(r.output()).isEqualTo(1); // the one step failed on its reads: no capacity
        List<Map<String, String>> rows = csv(csv);
        assertThat(rows).hasSize(1);
        Map<String, String> row = rows.get(0);
        assertThat(row.get("limited_by")).as(row.get("verdict")).isEqualTo("read-path");
        assertThat(row.get("passed")).isEqualTo("false");
        assertThat(Long.parseLong(row.get("query_errors")) + Long.parseLong(row.get("query_timeouts")))
                .as(row.toString())
                .isPositive();
        assertThat(Double.parseDouble(row.get("selects_capacity")))
                .isEqualTo(1.0); // -search.maxConcurrentRequests=1, read back
        assertThat(r.output()).contains("limited by read-path", "lost: nothing");
    }

    private record Run(int exit, String output) {}

    private static Run capacity(String name, String vmUrl, Path csv, String... more) throws Exception {
        List<String> args = new ArrayList<>(List.of(
                "capacity",
                "--bootstrap-servers",
                stack.bootstrapServers(),
                "--vm-url",
                vmUrl,
                "--topic-prefix",
                name,
                "--parallelism",
                "1",
                "--points-per-pass",
                "20000",
                "--data-dir",
                NodeExporterFiles.dir().toString(),
                "--step-drain-timeout",
                "60s",
                "--csv",
                csv.toString(),
                "--work-dir",
                stack.path(name).toString(),
                "--writer-jar",
                System.getProperty("tsdbwriter.jar", "target/tsdb-writer.jar"),
                "--writer-jvm-option=-Xmx256m",
                "--writer-jvm-option=-XX:TieredStopAtLevel=1"));
        args.addAll(List.of(more));
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        PrintStream saved = System.out;
        int exit;
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            exit = Main.execute(args.toArray(String[]::new));
        } finally {
            System.setOut(saved);
        }
        String output = buf.toString(StandardCharsets.UTF_8);
        System.out.println(output);
        return new Run(exit, output);
    }

    private static List<Map<String, String>> csv(Path file) throws Exception {
        List<String> lines = Files.readAllLines(file);
        String[] head = lines.get(0).split(",");
        List<Map<String, String>> rows = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            int q = line.indexOf(",\"");
            String[] f = line.substring(0, q).split(",", -1);
            Map<String, String> row = new LinkedHashMap<>();
            for (int i = 0; i < f.length; i++) {
                row.put(head[i], f[i]);
            }
            row.put("verdict", line.substring(q + 2, line.length() - 1));
            rows.add(row);
        }
        return rows;
    }
}
