package io.tsdbwriter.it;

import com.fasterxml.jackson.databind.JsonNode;
import io.tsdbwriter.it.Scenario.Fixture;
import io.tsdbwriter.it.support.Components.VmEndpoint;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.WriterProcess;
import io.tsdbwriter.produce.NodeExporterFiles;
import io.tsdbwriter.produce.SourcePoint;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The share-mode break scenario in a loop, for hunting a flaky result (opt-in: {@code -Dtsdbwriter.shareLoop.runs=20},
 * logs under {@code -Dtsdbwriter.shareLoop.dir}, default {@code /tmp/share-loop}): per run a fresh VictoriaMetrics and
 * topic (2 partitions, the 10,140 real points), six writer processes in share mode ({@code --max-samples-per-second} so the work lasts),
 * the first two killed with kill -9 once their report says they wrote samples, VictoriaMetrics stopped for two record
 * locks (12 s) and started again, then {@code verify} (the CLI, as an operator runs it) and SIGTERM to the four
 * survivors. Each run's directory {@code run-NN/} keeps every writer's output and summary, verify's output, the
 * VictoriaMetrics export and log, and a {@code result.txt} line; {@code loop.txt} one line per run. Asserts nothing:
 * the loop reports. {@code -Dtsdbwriter.shareLoop.vmFlags="-dedup.minScrapeInterval=0s"} runs VictoriaMetrics with
 * more flags (this one turns its deduplication off: the repeats of an at-least-once writer then stay).
 */
@EnabledIfSystemProperty(named = "tsdbwriter.shareLoop.runs", matches = "\\d+")
class ShareKillLoopIT {

    static final int M = 6;
    static final int N = 3;
    private static final Pattern WROTE = Pattern.compile("written=[1-9]");

    @RegisterExtension
    static final Stack stack = Stack.withKafka();

    @Test
    @Timeout(value = 4, unit = TimeUnit.HOURS)
    void loop() throws Exception {
        int runs = Integer.parseInt(System.getProperty("tsdbwriter.shareLoop.runs"));
        Path base = Path.of(System.getProperty("tsdbwriter.shareLoop.dir", "/tmp/share-loop"));
        Files.createDirectories(base);
        List<SourcePoint> points = Scenario.realPoints();
        List<Path> files = NodeExporterFiles.all();
        for (int run = 1; run <= runs; run++) {
            String line = once(base.resolve(String.format(Locale.ROOT, "run-%02d", run)), run, points, files);
            Files.writeString(
                    base.resolve("loop.txt"),
                    line + "\n",
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
            System.err.println("ShareKillLoopIT: " + line);
        }
    }

    private String once(Path dir, int run, List<SourcePoint> points, List<Path> files) throws Exception {
        Files.createDirectories(dir);
        String name = String.format(Locale.ROOT, "loop-%02d", run);
        String flags = System.getProperty("tsdbwriter.shareLoop.vmFlags", "");
        VmEndpoint vm = flags.isBlank()
                ? stack.startVm(name)
                : stack.startVm(name, flags.trim().split("\\s+"));
        List<WriterProcess> writers = new ArrayList<>();
        StringBuilder events = new StringBuilder();
        try {
            Fixture f = stack.realInput(name, 2, points);
            event(events, "topic " + f.topic() + " " + f.records() + " records; vm " + vm.url());
            for (int i = 0; i < 6; i++) {
                List<String> args = Scenario.runArgs(
                        stack.bootstrapServers(),
                        vm.url(),
                        f.topic(),
                        f.group(),
                        M,
                        N,
                        1,
                        "--consumer-mode",
                        "share",
                        "--drain-timeout",
                        "20s",
                        "--max-backoff",
                        "1s",
                        "--max-samples-per-second",
                        "2000",
                        "--consumer-property",
                        "share.acquire.mode=record_limit",
                        "--consumer-property",
                        "max.poll.records=50",
                        "--summary-json",
                        dir.resolve("w" + i + ".json").toString());
                args.set(args.indexOf("--report-interval") + 1, "1s");
                writers.add(WriterProcess.start(dir.resolve("w" + i + ".log"), args));
            }
            event(events, "6 writers started");
            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            while (!(WROTE.matcher(writers.get(0).output()).find()
                            && WROTE.matcher(writers.get(1).output()).find())
                    && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            writers.get(0).kill();
            writers.get(1).kill();
            event(
                    events,
                    "w0, w1 killed -9 (wrote: "
                            + WROTE.matcher(writers.get(0).output()).find() + ", "
                            + WROTE.matcher(writers.get(1).output()).find() + ")");
            vm.stop();
            event(events, "vm stopped");
            Thread.sleep(12_000);
            vm.restart();
            event(events, "vm started again");
            List<String> verifyArgs = new ArrayList<>(List.of(
                    "verify",
                    "--instance",
                    Scenario.INSTANCE,
                    "--product-key",
                    "node",
                    "--time-multiplier",
                    Integer.toString(M),
                    "--instance-multiplier",
                    Integer.toString(N),
                    "--vm-url",
                    vm.url(),
                    "--wait",
                    "120s",
                    "--keep-timestamps")); // the records carry the scrapes' own times
            files.forEach(p -> verifyArgs.add(p.toString()));
            WriterProcess verify = WriterProcess.start(dir.resolve("verify.log"), verifyArgs);
            int verifyExit = verify.waitFor(Duration.ofMinutes(4));
            event(events, "verify exit " + verifyExit);
            Files.write(dir.resolve("export.jsonl"), vm.export("{__name__!=\"\"}"));
            for (int i = 2; i < 6; i++) {
                writers.get(i).sigterm();
            }
            long accepted = 0;
            long redelivered = 0;
            StringBuilder exits = new StringBuilder();
            for (int i = 2; i < 6; i++) {
                int exit = writers.get(i).waitFor(Scenario.PROCESS_TIMEOUT);
                exits.append(exit).append(i < 5 ? "," : "");
                Path s = dir.resolve("w" + i + ".json");
                if (Files.exists(s)) {
                    JsonNode j = Scenario.summary(s);
                    accepted += j.path("share_accepted").asLong();
                    redelivered += j.path("share_redeliveries").asLong();
                }
            }
            event(events, "survivors exited " + exits);
            String verifyOut = verify.output();
            String result = String.format(
                    Locale.ROOT,
                    "run %02d: verify %s (exit %d) accepted=%d of %d redeliveries=%d survivors' exits %s | %s",
                    run,
                    verifyExit == 0 ? "PASSED" : "FAILED",
                    verifyExit,
                    accepted,
                    f.records(),
                    redelivered,
                    exits,
                    oneLine(verifyOut));
            Files.writeString(dir.resolve("result.txt"), result + "\n" + events);
            return result;
        } finally {
            writers.forEach(WriterProcess::close);
            copyQuietly(stack.path(name).resolve("victoria-metrics.log"), dir.resolve("victoria-metrics.log"));
            vm.close();
        }
    }

    private static void event(StringBuilder events, String what) {
        events.append(Instant.now()).append(' ').append(what).append('\n');
    }

    /** verify's counts on one line. */
    private static String oneLine(String out) {
        StringBuilder b = new StringBuilder();
        for (String l : out.split("\n")) {
            if (l.matches(
                    "^(read back|found|missing|unexpected series|unexpected samples|duplicate samples|value mismatches):.*")) {
                b.append(l.replaceAll("\\s+", " ").replaceAll(" \\(.*", "")).append("; ");
            }
        }
        return b.toString();
    }

    private static void copyQuietly(Path from, Path to) {
        try {
            if (Files.exists(from)) {
                Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            // the run's result stands without the log
        }
    }
}
