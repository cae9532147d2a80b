package io.tsdbwriter.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code --tsdb-cpus}/{@code --writer-cpus}: the Linux cpulist format, the checks against the CPUs this process may
 * use, the taskset command lines, the placement label of the tables, and what {@code ss} and {@code /proc} print.
 */
class PlacementTest {

    private static final CpuList TWO = CpuList.parse("0-1");

    @Test
    void cpuListsParseAndPrintInTheLinuxFormat() {
        assertThat(CpuList.parse("0").toString()).isEqualTo("0");
        assertThat(CpuList.parse("0-3,6").toString()).isEqualTo("0-3,6");
        assertThat(CpuList.parse(" 6, 0-2 ,3").toString()).isEqualTo("0-3,6");
        assertThat(CpuList.parse("1,2").toString()).isEqualTo("1-2");
        assertThat(CpuList.parse("0-3,6").size()).isEqualTo(5);
        assertThat(CpuList.parse("0-3").disjoint(CpuList.parse("4,5"))).isTrue();
        assertThat(CpuList.parse("0-3").disjoint(CpuList.parse("3"))).isFalse();
        assertThat(CpuList.parse("0-3").minus(CpuList.parse("1-2")).toString()).isEqualTo("0,3");
        assertThat(CpuList.parse("0-3").intersect(CpuList.parse("2-9")).toString())
                .isEqualTo("2-3");
    }

    @Test
    void badCpuListsAreRefusedQuotingTheText() {
        for (String bad : List.of("", " ", "a", "1-", "-1", "3-1", "0,,1", "1.5", "0-3:2", "99999")) {
            assertThatThrownBy(() -> CpuList.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
        assertThatThrownBy(() -> CpuList.parse("3-1"))
                .hasMessage("'3-1' is not a CPU list: the range 3-1 runs backwards");
        assertThatThrownBy(() -> CpuList.parse("x")).hasMessage("'x' is not a CPU list (expected e.g. 0, 1 or 0-3,6)");
    }

    @Test
    void placementsAreCheckedAgainstTheAvailableCpusAndMustBeDisjoint() {
        Placement p = Placement.of("0", "1", TWO);
        assertThat(p.tsdbCpus().toString()).isEqualTo("0");
        assertThat(p.writerCpus().toString()).isEqualTo("1");
        assertThat(p.label()).isEqualTo("tsdb=0 writer=1");
        assertThat(Placement.of(null, "1", TWO).label()).isEqualTo("writer=1");
        assertThat(Placement.of(null, null, TWO)).isSameAs(Placement.SHARED);
        assertThat(Placement.SHARED.label()).isEqualTo("shared");

        assertThatThrownBy(() -> Placement.of("0", "2", TWO))
                .hasMessage("--writer-cpus 2: CPU 2 is not online or not in this machine's cpuset (available: 0-1)");
        assertThatThrownBy(() -> Placement.of("0-1", "1", TWO))
                .hasMessage("--tsdb-cpus 0-1 and --writer-cpus 1 share CPU 1: the two sets must be disjoint");
        assertThatThrownBy(() -> Placement.of("0", null, TWO))
                .hasMessage("--tsdb-cpus needs --writer-cpus (the writer side's CPUs, disjoint from the TSDB's)");
        assertThatThrownBy(() -> Placement.of("x", "1", TWO))
                .hasMessageStartingWith("--tsdb-cpus: 'x' is not a CPU list");
    }

    @Test
    void writerProcessesStartUnderTasksetAndRunningProcessesArePinnedWithAllTheirThreads() {
        Placement p = Placement.of("0", "1-3", CpuList.parse("0-3"));
        assertThat(p.writerCommand(List.of("java", "-jar", "w.jar", "run")))
                .containsExactly("taskset", "-c", "1-3", "java", "-jar", "w.jar", "run");
        assertThat(Placement.SHARED.writerCommand(List.of("java", "-jar", "w.jar")))
                .containsExactly("java", "-jar", "w.jar");
        assertThat(Placement.pinCommand(4321, CpuList.parse("0")))
                .containsExactly("taskset", "-a", "-p", "-c", "0", "4321");
        assertThat(Placement.startCommand(CpuList.parse("0,2"), List.of("victoria-metrics")))
                .containsExactly("taskset", "-c", "0,2", "victoria-metrics");
    }

    @Test
    void theListenerPidsAndTheAffinityAreReadFromSsAndProc() {
        String ss =
                "LISTEN 0      4096       127.0.0.1:8428       0.0.0.0:*    users:((\"victoria-metric\",pid=1234,fd=7))\n"
                        + "LISTEN 0      4096           [::1]:8428          [::]:*    users:((\"victoria-metric\",pid=1234,fd=8),(\"x\",pid=99,fd=3))\n";
        assertThat(CpuPinning.pidsOf(ss)).containsExactly(1234L, 99L);
        assertThat(CpuPinning.pidsOf("LISTEN 0 4096 0.0.0.0:9092 0.0.0.0:*\n")).isEmpty(); // another user's process
        String status = "Name:\tvictoria-metric\nCpus_allowed:\t1\nCpus_allowed_list:\t0\nMems_allowed_list:\t0\n";
        assertThat(CpuPinning.cpusAllowedOf(status)).contains(CpuList.parse("0"));
        assertThat(CpuPinning.cpusAllowedOf("Name:\tx\n")).isEmpty();
        assertThat(CpuPinning.local("127.0.0.1")).isTrue();
        assertThat(CpuPinning.local("localhost")).isTrue();
        assertThat(CpuPinning.local("[::1]")).isTrue();
        assertThat(CpuPinning.local("192.0.2.1")).isFalse(); // TEST-NET-1: never an address of this machine
    }
}
