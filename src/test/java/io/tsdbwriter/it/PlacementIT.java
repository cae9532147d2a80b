package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.tsdbwriter.it.support.Components;
import io.tsdbwriter.it.support.Components.PrometheusVersion;
import io.tsdbwriter.it.support.PrometheusServer;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.VictoriaMetrics;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code bench --tsdb-cpus 0 --writer-cpus 1} against a real Kafka broker and VictoriaMetrics on loopback (issue 43
 * item 1): a short bench (tiny synthetic backlog, one cell) as its own process, as a user runs it. What the processes'
 * {@code Cpus_allowed_list} in {@code /proc} says while it runs and after: VictoriaMetrics on CPU 0, the writer
 * process, the bench process and the Kafka broker on CPU 1; the cell's writer started as {@code taskset -c 1 java …};
 * the table's header, the table and the CSV name the placement. A VictoriaMetrics started elsewhere is moved with a
 * warning; one started on its CPUs ({@code taskset -c 0}, as scripts/bench.sh starts it) is left as it is.
 *
 * <p>It runs in the default failsafe execution, beside another class: what it asserts is where processes run (their
 * affinity lists), what the output, table and CSV say, and the samples written (counts); no figure the bench measures
 * is asserted, and the bench moves only the processes it started or was given (its own broker and VictoriaMetrics),
 * never a neighbour's.
 */
class PlacementIT {

    @RegisterExtension
    static final Stack stack = Stack.withKafka(); // each test starts its VictoriaMetrics

    /** A VictoriaMetrics started on every CPU is moved onto CPU 0, with the warning; the writer side runs on CPU 1. */
    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void benchOnDisjointCpusMovesARunningVictoriaMetricsWithAWarning() throws Exception {
        var vm = stack.startVm("vm-moved");
        long vmPid = pidListeningOn(vm.port());
        assertThat(cpusAllowed(vmPid)).isNotEqualTo("0"); // the fixture started it on every CPU
        Run run = bench("moved", vm.url());
        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(run.output())
                .contains(
                        "placement: warning: TSDB (pid " + vmPid + ") was on CPUs",
                        "moved to 0; its GOMAXPROCS and concurrency limits were sized at its start");
        assertPlaced(run, vmPid);
    }

    /** A VictoriaMetrics started on CPU 0, as the scripts start it, is found there: no warning, nothing moved. */
    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aVictoriaMetricsStartedOnItsCpusIsLeftAsItIs() throws Exception {
        Components.VmEndpoint vm = startVmOnCpu0("vm-started");
        long vmPid = pidListeningOn(vm.port());
        assertThat(cpusAllowed(vmPid)).isEqualTo("0");
        Run run = bench("started", vm.url());
        assertThat(run.exit()).as(run.output()).isZero();
        assertThat(run.output())
                .contains("placement: TSDB (pid " + vmPid + ") started on CPUs 0")
                .doesNotContain("warning: TSDB");
        assertPlaced(run, vmPid);
    }

    /**
     * {@code --output remote-write-2 --prometheus-binary …} (issue 43's 2.0 rows): the ceiling and the cell each get a
     * new Prometheus 3 of their own on the TSDB's CPU, started empty on a port of their own and gone after them (process
     * and data; their logs kept); the ceiling posts each body once, without the registering pass; the cell writes every
     * sample.
     */
    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void remoteWrite2CellsAndTheirCeilingEachGetANewPrometheusOnTheTsdbCpus() throws Exception {
        stack.assumeAvailable(PrometheusVersion.CURRENT);
        Components.VmEndpoint vm = startVmOnCpu0("vm-rw2");
        Run run = bench(
                "rw2",
                vm.url(),
                "--output",
                "remote-write-2",
                "--prometheus-binary",
                PrometheusServer.CURRENT_BINARY.toString(),
                "--histogram-series",
                "20");
        assertThat(run.exit()).as(run.output()).isZero();

        List<String> started = run.output()
                .lines()
                .filter(l -> l.contains(": a new Prometheus ("))
                .toList();
        assertThat(started).as(run.output()).hasSize(2);
        assertThat(started.get(0))
                .contains("ceiling-1-prometheus: a new Prometheus (" + PrometheusServer.CURRENT_BINARY
                        + ") at http://127.0.0.1:");
        assertThat(started.get(1)).contains("cell-01-prometheus: a new Prometheus (");
        assertThat(started.get(0).substring(started.get(0).indexOf(" at ")))
                .isNotEqualTo(started.get(1).substring(started.get(1).indexOf(" at ")));
        assertThat(run.output())
                .contains("into a Prometheus of its own; each posted at most once")
                .doesNotContain("registers the series");
        assertThat(run.receivers())
                .as("the Prometheus processes seen while it ran")
                .hasSizeGreaterThanOrEqualTo(1)
                .allSatisfy(
                        (pid, cpus) -> assertThat(cpus).as("prometheus " + pid).isEqualTo("0"));
        run.receivers().keySet().forEach(pid -> assertThat(
                        ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                .as("prometheus " + pid + " after the run")
                .isFalse());
        for (String name : List.of("ceiling-1-prometheus", "cell-01-prometheus")) {
            assertThat(run.work().resolve(name)).as("its data").doesNotExist();
            assertThat(run.work().resolve(name + ".log")).as("its log").exists();
        }
        // the histogram share: 20 series x 30 minutes, one native histogram per data point, read back from its own
        var summary =
                new ObjectMapper().readTree(run.work().resolve("cell-01.json").toFile());
        assertThat(summary.path("samples_written").asLong()).isEqualTo(3000 + 600);
        assertThat(summary.path("samples_expected").asLong()).isEqualTo(3000 + 600);
        assertThat(summary.path("samples_read_back").asLong()).isEqualTo(3000 + 600);
        assertThat(summary.path("histogram_samples_read_back").asLong()).isEqualTo(600);
        List<String> table =
                run.output().lines().filter(l -> l.startsWith("| ")).toList();
        assertThat(table.get(0)).contains("| histogram share | native histograms (buckets) |");
        assertThat(table.get(1)).startsWith("| ceiling remote-write-2");
        assertThat(table.get(2)).contains("remote-write-2").doesNotContain("127.0.0.1");
    }

    /**
     * {@code --output import,remote-write --victoria-metrics-binary …} (issue 43's like-for-like ceilings): each shape's
     * ceiling and cell get a new VictoriaMetrics of their own on the TSDB's CPU, started empty on a port of their own and
     * gone after them (process and data; their logs kept); the ceilings post each body once; each cell writes every
     * sample into its own, none into {@code --vm-url}'s.
     */
    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void importAndRemoteWriteCellsAndTheirCeilingsEachGetANewVictoriaMetricsOnTheTsdbCpus() throws Exception {
        Components.VmEndpoint vm = startVmOnCpu0("vm-fresh");
        String binary = System.getProperty("tsdbwriter.vm.binary", VictoriaMetrics.DEFAULT_BINARY);
        Run run = bench("fresh-vm", vm.url(), "--output", "import,remote-write", "--victoria-metrics-binary", binary);
        assertThat(run.exit()).as(run.output()).isZero();

        List<String> started = run.output()
                .lines()
                .filter(l -> l.contains(": a new VictoriaMetrics ("))
                .toList();
        List<String> names = List.of(
                "ceiling-1-victoria-metrics",
                "cell-01-victoria-metrics",
                "ceiling-2-victoria-metrics",
                "cell-02-victoria-metrics");
        assertThat(started).as(run.output()).hasSize(4);
        for (int i = 0; i < names.size(); i++) {
            assertThat(started.get(i))
                    .contains(names.get(i) + ": a new VictoriaMetrics (" + binary + ") at http://127.0.0.1:");
        }
        assertThat(started.stream().map(l -> l.substring(l.indexOf(" at "))).distinct())
                .hasSize(4);
        assertThat(run.output())
                .contains("into a VictoriaMetrics of its own; each posted at most once")
                .doesNotContain("registers the series");
        assertThat(run.receivers())
                .as("the VictoriaMetrics processes seen while it ran")
                .hasSizeGreaterThanOrEqualTo(1)
                .allSatisfy((pid, cpus) ->
                        assertThat(cpus).as("victoria-metrics " + pid).isEqualTo("0"));
        run.receivers().keySet().forEach(pid -> assertThat(
                        ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false))
                .as("victoria-metrics " + pid + " after the run")
                .isFalse());
        for (String name : names) {
            assertThat(run.work().resolve(name)).as("its data").doesNotExist();
            assertThat(run.work().resolve(name + ".log")).as("its log").exists();
        }
        for (String cell : List.of("cell-01", "cell-02")) {
            var summary = new ObjectMapper()
                    .readTree(run.work().resolve(cell + ".json").toFile());
            assertThat(summary.path("samples_written").asLong()).as(cell).isEqualTo(3000);
            assertThat(summary.path("samples_expected").asLong()).as(cell).isEqualTo(3000);
        }
        vm.forceFlush();
        assertThat(vm.export("{__name__=~\".+\"}"))
                .as("--vm-url's VictoriaMetrics")
                .isEmpty();
        List<String> table =
                run.output().lines().filter(l -> l.startsWith("| ")).toList();
        assertThat(table).as(run.output()).hasSize(5);
        assertThat(table.get(3)).startsWith("| ceiling remote-write");
        assertThat(table.get(4)).contains("remote-write").doesNotContain("127.0.0.1");
    }

    /**
     * {@code --histogram-series 20} with a VictoriaMetrics of its own per cell: the import cell reads the histogram topic
     * beside the backlog; its samples are the points' and the histograms' {@code vmrange} bucket series as the bench
     * counted them when it produced them, all read back from the cell's receiver, the histograms' part told apart; the
     * table has the histograms' columns. (The remote-write-2 test above reads the same share as native histograms.)
     */
    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void aHistogramShareIsReadByEveryCellAndReadBackFromItsReceiver() throws Exception {
        Components.VmEndpoint vm = startVmOnCpu0("vm-hist");
        String binary = System.getProperty("tsdbwriter.vm.binary", VictoriaMetrics.DEFAULT_BINARY);
        Run run = bench("hist", vm.url(), "--histogram-series", "20", "--victoria-metrics-binary", binary);
        assertThat(run.exit()).as(run.output()).isZero();

        var produced = Pattern.compile(
                        "histograms: ([\\d,]+) records, 600 data points: ([\\d,]+) samples before M x N as "
                                + "native histograms, ([\\d,]+) as vmrange bucket series")
                .matcher(run.output());
        assertThat(produced.find()).as(run.output()).isTrue();
        assertThat(number(produced.group(2))).isEqualTo(600);
        long vmrange = number(produced.group(3));
        assertThat(vmrange).isGreaterThan(3 * 600); // _count, _sum and at least one bucket per data point
        assertThat(run.output()).contains("histograms: producing 20 series of http.server.request.duration");

        var summary =
                new ObjectMapper().readTree(run.work().resolve("cell-01.json").toFile());
        assertThat(summary.path("samples_expected").asLong()).isEqualTo(3000 + vmrange);
        assertThat(summary.path("samples_written").asLong()).isEqualTo(3000 + vmrange);
        assertThat(summary.path("samples_read_back").asLong()).isEqualTo(3000 + vmrange);
        assertThat(summary.path("histogram_samples_read_back").asLong()).isEqualTo(vmrange);
        List<String> table =
                run.output().lines().filter(l -> l.startsWith("| ")).toList();
        assertThat(table.get(0)).contains("| histogram share | native histograms (buckets) |");
        assertThat(Files.readAllLines(run.csv()).get(0))
                .endsWith(",histogram_samples_expected,histograms_written,histogram_buckets_written,placement");
    }

    private static long number(String grouped) {
        return Long.parseLong(grouped.replace(",", ""));
    }

    /** A VictoriaMetrics started under {@code taskset -c 0}, as the scripts start it. */
    private static Components.VmEndpoint startVmOnCpu0(String name) {
        System.setProperty("tsdbwriter.tsdb.cpus", "0");
        try {
            return stack.startVm(name);
        } finally {
            System.clearProperty("tsdbwriter.tsdb.cpus");
        }
    }

    private void assertPlaced(Run run, long vmPid) throws Exception {
        assertThat(cpusAllowed(vmPid)).as("VictoriaMetrics").isEqualTo("0");
        long kafkaPid = pidListeningOn(port(stack.bootstrapServers()));
        assertThat(run.output())
                .contains("placement: Kafka (pid " + kafkaPid + ", " + stack.bootstrapServers() + ") on CPUs 1");
        assertThat(cpusAllowed(kafkaPid)).as("Kafka").isEqualTo("1");
        assertThat(run.affinities()).as("the bench process while it ran").containsEntry(run.benchPid(), "1");
        List<Long> writers = run.affinities().keySet().stream()
                .filter(pid -> pid != run.benchPid())
                .toList();
        assertThat(writers).as("a writer process seen while it ran").isNotEmpty();
        writers.forEach(
                pid -> assertThat(run.affinities().get(pid)).as("writer " + pid).isEqualTo("1"));
        String started = Files.readAllLines(run.work().resolve("cell-01.log")).get(0);
        assertThat(started).startsWith("# taskset -c 1 ").contains(" -jar ", " run ");

        assertThat(run.output()).contains("placement: tsdb=0 writer=1\n");
        // the machine's cores, not the bench process's own (it runs on the writer CPUs)
        long online = Files.readAllLines(Path.of("/proc/stat")).stream()
                .filter(l -> l.matches("cpu\\d+ .*"))
                .count();
        // then the CPU model where /proc/cpuinfo names one: "machine: 2 cores (AMD EPYC), "
        assertThat(run.output()).containsPattern("machine: " + online + " cores( \\([^)]+\\))?, ");
        List<String> table =
                run.output().lines().filter(l -> l.startsWith("| ")).toList();
        assertThat(table.get(0)).endsWith("| placement       |");
        assertThat(table.subList(1, table.size())).hasSize(2).allSatisfy(row -> assertThat(row)
                .endsWith("| tsdb=0 writer=1 |"));
        assertThat(table.get(1)).startsWith("| ceiling");
        List<String> csv = Files.readAllLines(run.csv());
        assertThat(csv.get(0)).endsWith(",placement");
        assertThat(csv.subList(1, csv.size())).hasSize(2).allSatisfy(line -> assertThat(line)
                .endsWith(",tsdb=0 writer=1"));
    }

    private record Run(
            int exit,
            String output,
            long benchPid,
            ConcurrentHashMap<Long, String> affinities,
            ConcurrentHashMap<Long, String> receivers,
            Path work,
            Path csv) {}

    /** Runs {@code java -jar tsdb-writer.jar bench … --tsdb-cpus 0 --writer-cpus 1}, recording affinities from /proc as it runs. */
    private Run bench(String name, String vmUrl, String... more) throws Exception {
        Path work = stack.path(name + "/work");
        Path csv = stack.path(name + "/bench.csv");
        Path out = stack.path(name + "/bench.txt");
        Files.createDirectories(work);
        String java = ProcessHandle.current().info().command().orElseThrow();
        List<String> cmd = new ArrayList<>(List.of(
                java,
                "-Xmx512m",
                "-jar",
                System.getProperty("tsdbwriter.jar", "target/tsdb-writer.jar"),
                "bench",
                "--bootstrap-servers",
                stack.bootstrapServers(),
                "--vm-url",
                vmUrl,
                "--topic",
                "placement-" + name,
                "--source",
                "synthetic",
                "--series",
                "100",
                "--records",
                "3000",
                "--parallelism",
                "1",
                "--time-multiplier",
                "1",
                "--write-mode",
                "async",
                "--ceiling-seconds",
                "1s",
                "--ceiling-pool",
                "1MiB",
                "--settle-timeout",
                "3s",
                "--cell-timeout",
                "2m",
                "--csv",
                csv.toString(),
                "--work-dir",
                work.toString(),
                "--writer-jvm-option=-Xmx256m",
                "--writer-jvm-option=-XX:TieredStopAtLevel=1",
                "--tsdb-cpus",
                "0",
                "--writer-cpus",
                "1"));
        cmd.addAll(List.of(more));
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .start();
        ConcurrentHashMap<Long, String> affinities = new ConcurrentHashMap<>();
        ConcurrentHashMap<Long, String> receivers =
                new ConcurrentHashMap<>(); // TSDBs the bench starts: its descendants
        try {
            while (!p.waitFor(20, TimeUnit.MILLISECONDS)) {
                if (Files.readString(out, StandardCharsets.UTF_8).contains("placement: writer processes start")) {
                    cpusAllowedOrEmpty(p.pid()).ifPresent(a -> affinities.put(p.pid(), a)); // after it moved itself
                }
                p.descendants()
                        .filter(h -> h.info()
                                .arguments()
                                .map(a -> List.of(a).contains("run"))
                                .orElse(false))
                        .forEach(h -> cpusAllowedOrEmpty(h.pid()).ifPresent(a -> affinities.put(h.pid(), a)));
                p.descendants()
                        .filter(h -> h.info()
                                .command()
                                .map(c -> c.endsWith("/prometheus") || c.endsWith("/victoria-metrics"))
                                .orElse(false))
                        .forEach(h -> cpusAllowedOrEmpty(h.pid()).ifPresent(a -> receivers.put(h.pid(), a)));
            }
        } finally {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        }
        String output = Files.readString(out, StandardCharsets.UTF_8);
        System.out.println(output);
        return new Run(p.exitValue(), output, p.pid(), affinities, receivers, work, csv);
    }

    private static int port(String hostPort) {
        return Integer.parseInt(
                hostPort.substring(hostPort.lastIndexOf(':') + 1).split(",")[0]);
    }

    /** The pid {@code ss -Htlnp} names for the listener on a loopback port. */
    private static long pidListeningOn(int port) throws Exception {
        Process ss = new ProcessBuilder("ss", "-Htlnp", "sport = :" + port)
                .redirectErrorStream(true)
                .start();
        String text = new String(ss.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        ss.waitFor();
        var m = Pattern.compile("pid=(\\d+)").matcher(text);
        assertThat(m.find()).as("ss for port " + port + ": " + text).isTrue();
        return Long.parseLong(m.group(1));
    }

    private static String cpusAllowed(long pid) {
        return cpusAllowedOrEmpty(pid).orElseThrow(() -> new AssertionError("no /proc/" + pid + "/status"));
    }

    private static Optional<String> cpusAllowedOrEmpty(long pid) {
        try {
            return Files.readAllLines(Path.of("/proc/" + pid + "/status")).stream()
                    .filter(l -> l.startsWith("Cpus_allowed_list:"))
                    .map(l -> l.substring(l.indexOf(':') + 1).strip())
                    .findFirst();
        } catch (IOException e) {
            return Optional.empty(); // it ended meanwhile
        }
    }
}
