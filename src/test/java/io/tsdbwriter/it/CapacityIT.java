package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.cli.Main;
import io.tsdbwriter.it.support.FaultProxy;
import io.tsdbwriter.it.support.RunsAlone;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.produce.NodeExporterFiles;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code tsdb-writer capacity} against real constrained targets the test builds: a VictoriaMetrics with
 * {@code -maxConcurrentInserts=1} behind a loopback proxy that holds every import request 100 ms, and writers with
 * one write permit ({@code --max-concurrent-writes 1}) and 500-sample batches — at most ~5,000 samples/s. The search
 * (3 rising steps of 20 s: 800, 2,400 and 7,200 points/s, then one refinement) must end, name the writer's permits
 * as what binds at the failing step (one permit, held while the proxy delays, the target's one insert slot mostly
 * idle), write its CSV, PNG and report page (the command line's secrets redacted), and lose nothing: VictoriaMetrics
 * holds exactly the samples produced.
 */
@RunsAlone
class CapacityIT {

    /** The constrained target: one insert slot. */
    @RegisterExtension
    static final Stack stack = Stack.withKafka().withVm("-maxConcurrentInserts=1");

    @Test
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void aShortSearchNamesTheConstraintTheTestBuiltAndLosesNothing() throws Exception {
        try (FaultProxy proxy = new FaultProxy(stack.vmUrl())) {
            proxy.mode(new FaultProxy.Delay(Duration.ofMillis(100)));
            Path csv = stack.path("out/capacity.csv");
            Path png = stack.path("out/capacity.png");
            Path data = NodeExporterFiles.dir();
            ByteArrayOutputStream buf = new ByteArrayOutputStream();
            PrintStream saved = System.out;
            int exit;
            System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
            try {
                exit = Main.execute(
                        "capacity",
                        "--bootstrap-servers",
                        stack.bootstrapServers(),
                        "--vm-url",
                        proxy.url(),
                        "--target-metrics-url",
                        stack.vmUrl() + "/metrics",
                        "--topic-prefix",
                        "cap-it",
                        "--start-input-rate",
                        "800",
                        "--step-factor",
                        "3",
                        "--step-duration",
                        "20s",
                        "--warm-up",
                        "5s",
                        "--max-steps",
                        "3",
                        "--refine-steps",
                        "1",
                        "--max-concurrent-writes",
                        "1",
                        "--batch-samples",
                        "500",
                        "--parallelism",
                        "1",
                        "--points-per-pass",
                        "20000",
                        "--data-dir",
                        data.toString(),
                        "--step-drain-timeout",
                        "90s",
                        "--csv",
                        csv.toString(),
                        "--chart",
                        png.toString(),
                        "--report",
                        stack.path("out").toString(),
                        "--work-dir",
                        stack.path("steps").toString(),
                        "--writer-arg=--vm-header=X-Capacity-It:IT-SECRET-VALUE",
                        "--writer-jar",
                        System.getProperty("tsdbwriter.jar", "target/tsdb-writer.jar"),
                        "--writer-jvm-option=-Xmx256m",
                        "--writer-jvm-option=-XX:TieredStopAtLevel=1");
            } finally {
                System.setOut(saved);
            }
            String output = buf.toString(StandardCharsets.UTF_8);
            System.out.println(output);
            assertThat(exit).as(output).isZero();
            assertThat(output).contains("capacity: ", "lost: nothing");

            List<Map<String, String>> rows = csv(csv);
            // a step that missed within the noise is measured again: a row of its own, marked remeasure_of
            assertThat(rows.stream()
                            .filter(r -> r.get("remeasure_of").isEmpty())
                            .count())
                    .isBetween(3L, 4L);
            assertThat(rows.stream()
                            .filter(r -> r.get("step").equals("1")
                                    || r.get("remeasure_of").equals("1")))
                    .as("the first load passes")
                    .anyMatch(r -> r.get("passed").equals("true"));
            Map<String, String> failing = rows.stream()
                    .filter(r -> r.get("passed").equals("false"))
                    .filter(r ->
                            rows.stream().noneMatch(o -> o.get("remeasure_of").equals(r.get("step"))))
                    .findFirst()
                    .orElseThrow();
            assertThat(failing.get("limited_by")).as(failing.get("verdict")).isEqualTo("writer-permits");
            assertThat(Double.parseDouble(failing.get("inserts_capacity")))
                    .isEqualTo(1.0); // -maxConcurrentInserts=1, read once
            assertThat(output).contains("verdict (failing step").contains("limited by writer-permits");
            assertThat(png).isRegularFile();
            assertThat(Files.size(png)).isGreaterThan(5_000);
            assertThat(new String(Files.readAllBytes(png), 1, 3, StandardCharsets.US_ASCII))
                    .isEqualTo("PNG");

            // the page a person reads: the capacity, the verdict, each step, the command line without the secret
            String html = Files.readString(stack.path("out/capacity-report.html"));
            String md = Files.readString(stack.path("out/capacity-report.md"));
            assertThat(output)
                    .contains("report: " + stack.path("out/capacity-report.html") + " and capacity-report.md");
            assertThat(html)
                    .contains(
                            "<p id=\"capacity\" class=\"capacity\">capacity: ",
                            "<dd class=\"limited-by\">writer-permits</dd>",
                            "<tr id=\"steps-" + failing.get("step") + "\" class=\"fail\"",
                            "--report " + stack.path("out"),
                            "--writer-arg=--vm-header=X-Capacity-It:***")
                    .doesNotContain("IT-SECRET-VALUE")
                    .doesNotContain("<script");
            assertThat(html.split("<tr id=\"steps-", -1)).hasSize(rows.size() + 1);
            assertThat(md)
                    .contains("![capacity chart](capacity.png)", "- **limited by**: writer-permits")
                    .doesNotContain("IT-SECRET-VALUE");

            long produced = rows.stream()
                    .mapToLong(r -> Long.parseLong(r.get("produced_points")))
                    .sum();
            assertThat(rows).allSatisfy(r -> assertThat(r.get("lost_samples")).isEqualTo("0"));
            // exact read-back: M = N = 1, every produced point is one sample, each timestamp unique per series
            List<String> lines =
                    stack.vm().awaitExport("{__name__=~\".+\"}", l -> count(l) >= produced, Duration.ofSeconds(30));
            assertThat(count(lines)).isEqualTo(produced);
        }
    }

    private static final Pattern TIMESTAMPS = Pattern.compile("\"timestamps\":\\[([^\\]]*)]");

    private static long count(List<String> exportLines) {
        long n = 0;
        for (String line : exportLines) {
            Matcher m = TIMESTAMPS.matcher(line);
            if (m.find() && !m.group(1).isBlank()) {
                n += m.group(1).split(",").length;
            }
        }
        return n;
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
