package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.cli.Main;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.produce.NodeExporterFiles;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code capacity --output remote-write}: the search drives writers that speak remote write to the given URL (here
 * VictoriaMetrics' {@code /api/v1/write}, so its own counters tell the protocols apart) — the way it sizes Prometheus,
 * Mimir or Thanos receive. Exact: VictoriaMetrics' {@code vm_rows_inserted_total{type="promremotewrite"}} equals the
 * samples the steps produced, and no row came through the import API. Counts only (no step's verdict is asserted), so
 * it runs in the default failsafe execution, beside another class.
 */
class CapacityRemoteWriteIT {

    @RegisterExtension
    static final Stack stack = Stack.withKafka().withVm();

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void theStepWritersSpeakRemoteWriteToTheGivenUrl() throws Exception {
        Path csv = stack.path("out/capacity.csv");
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
                    stack.vmUrl(),
                    "--output",
                    "remote-write",
                    "--remote-write-url",
                    stack.vmUrl() + "/api/v1/write",
                    "--topic-prefix",
                    "cap-rw-it",
                    "--start-input-rate",
                    "500",
                    "--step-factor",
                    "2",
                    "--step-duration",
                    "12s",
                    "--warm-up",
                    "3s",
                    "--max-steps",
                    "2",
                    "--refine-steps",
                    "0",
                    "--parallelism",
                    "1",
                    "--points-per-pass",
                    "10000",
                    "--data-dir",
                    NodeExporterFiles.dir().toString(),
                    "--step-drain-timeout",
                    "60s",
                    "--csv",
                    csv.toString(),
                    "--work-dir",
                    stack.path("steps").toString(),
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
        assertThat(output).contains("lost: nothing");

        List<String> lines = Files.readAllLines(csv);
        int producedColumn = List.of(lines.get(0).split(",")).indexOf("produced_points");
        long produced = lines.subList(1, lines.size()).stream()
                .mapToLong(l -> Long.parseLong(l.split(",")[producedColumn]))
                .sum();
        assertThat(produced).isPositive();
        stack.vm().forceFlush();
        String metrics = stack.vm().get("/metrics").body();
        assertThat(rowsInserted(metrics, "promremotewrite")).isEqualTo(produced); // M = N = 1: one sample per point
        assertThat(rowsInserted(metrics, "vmimport")).isZero();
    }

    private static long rowsInserted(String metrics, String type) {
        Matcher m = Pattern.compile("(?m)^vm_rows_inserted_total\\{type=\"" + type + "\"} (\\d+)")
                .matcher(metrics);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }
}
