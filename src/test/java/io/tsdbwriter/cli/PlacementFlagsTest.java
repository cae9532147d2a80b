package io.tsdbwriter.cli;

import static io.tsdbwriter.cli.CliRun.assertUsageError;
import static io.tsdbwriter.cli.CliRun.execute;
import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.cli.CliRun.Result;
import java.net.InetAddress;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code --tsdb-cpus}/{@code --writer-cpus} of {@code bench} and {@code capacity}: help says what and why; bad values
 * give one line and exit 2 before anything starts (this machine is Linux with at most 4096 CPUs, taskset and ss).
 */
class PlacementFlagsTest {

    /** A loopback port nothing listens on (bound, then released). */
    private static int closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"bench", "capacity"})
    void helpSaysWhatThePlacementFlagsDoAndWhy(String command) {
        Result r = execute(command, "--help");
        assertThat(r.exitCode()).isZero();
        String text = r.out().replaceAll("\\s+", " ");
        assertThat(text)
                .contains(
                        "--tsdb-cpus=LIST", "--writer-cpus=LIST", "taskset -c LIST", "GOMAXPROCS", "1 ÷ (1 + writer/");
    }

    @ParameterizedTest
    @ValueSource(strings = {"bench", "capacity"})
    void badCpuListsExitTwoWithOneLine(String command) throws Exception {
        String vm = "http://127.0.0.1:" + closedPort();
        assertUsageError(
                execute(command, "--vm-url", vm, "--tsdb-cpus", "0", "--writer-cpus", "1-"),
                "--writer-cpus: '1-' is not a CPU list");
        assertUsageError(
                execute(command, "--vm-url", vm, "--tsdb-cpus", "0", "--writer-cpus", "4097"),
                "--writer-cpus 4097: CPU 4097 is not online or not in this machine's cpuset (available: ");
        assertUsageError(
                execute(command, "--vm-url", vm, "--tsdb-cpus", "0", "--writer-cpus", "0"),
                "--tsdb-cpus 0 and --writer-cpus 0 share CPU 0: the two sets must be disjoint");
        assertUsageError(execute(command, "--vm-url", vm, "--tsdb-cpus", "0"), "--tsdb-cpus needs --writer-cpus");
    }

    @ParameterizedTest
    @ValueSource(strings = {"bench", "capacity"})
    void tsdbCpusAreRefusedWhenTheTsdbIsNotOnThisMachine(String command) throws Exception {
        int port = closedPort();
        assertUsageError(
                execute(command, "--vm-url", "http://127.0.0.1:" + port, "--tsdb-cpus", "0", "--writer-cpus", "1"),
                "--tsdb-cpus: no process of this machine listens on port " + port + " of http://127.0.0.1:" + port
                        + " (the TSDB runs elsewhere): drop --tsdb-cpus");
        assertUsageError(
                execute(command, "--vm-url", "http://192.0.2.1:8428", "--tsdb-cpus", "0", "--writer-cpus", "1"),
                "no process of this machine listens on port 8428 of http://192.0.2.1:8428");
    }

    @Test
    void benchAsksTheRemoteWriteReceiversToo() throws Exception {
        try (ServerSocket vm = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            int receiver = closedPort();
            assertUsageError(
                    execute(
                            "bench",
                            "--vm-url",
                            "http://127.0.0.1:" + vm.getLocalPort(),
                            "--remote-write-url",
                            "http://127.0.0.1:" + receiver + "/api/v1/write",
                            "--tsdb-cpus",
                            "0",
                            "--writer-cpus",
                            "1"),
                    "no process of this machine listens on port " + receiver);
        }
    }
}
