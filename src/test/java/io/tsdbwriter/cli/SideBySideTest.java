package io.tsdbwriter.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tsdbwriter.capacity.targets.SearchTarget;
import io.tsdbwriter.lab.CpuList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code capacity --side-by-side}: each target on CPUs of its own, one left for this command, or one line why not. */
class SideBySideTest {

    private static final CpuList EIGHT = CpuList.parse("0-7");

    private static List<SearchTarget> targets(String... values) {
        return SearchTarget.parseAll(List.of(values));
    }

    @Test
    void eachTargetGetsItsOwnCpusAndTheRestGoesToThisCommand() {
        TargetOptions.SideBySide side = TargetOptions.sideBySide(
                targets(
                        "vm=http://vm:8428,tsdb-cpus=0-1,writer-cpus=2",
                        "prom=http://p:9090/api/v1/write,output=remote-write,tsdb-cpus=3;4,writer-cpus=5"),
                EIGHT);
        assertThat(side.targets()).hasSize(2);
        assertThat(side.targets().get(0).tsdbCpus()).hasToString("0-1");
        assertThat(side.targets().get(0).writerCpus()).hasToString("2");
        assertThat(side.targets().get(1).tsdbCpus()).hasToString("3-4");
        assertThat(side.rest()).hasToString("6-7");
    }

    @Test
    void aTargetWithoutItsCpusIsRefusedNamingIt() {
        assertThatThrownBy(() -> TargetOptions.sideBySide(
                        targets("vm=http://vm:8428,tsdb-cpus=0,writer-cpus=1", "prom=http://p:9090"), EIGHT))
                .hasMessage(
                        "--side-by-side: --target prom needs tsdb-cpus=LIST and writer-cpus=LIST (the CPUs of its TSDB and of its "
                                + "writers, e.g. ,tsdb-cpus=0-1,writer-cpus=2-3)");
        assertThatThrownBy(
                        () -> TargetOptions.sideBySide(targets("vm=http://vm:8428,tsdb-cpus=0,writer-cpus=1"), EIGHT))
                .hasMessage("--side-by-side needs at least two --target (got 1)");
    }

    @Test
    void targetsSharingACpuAreRefused() {
        assertThatThrownBy(() -> TargetOptions.sideBySide(
                        targets(
                                "a=http://a:8428,tsdb-cpus=0-1,writer-cpus=2",
                                "b=http://b:8428,tsdb-cpus=2-3,writer-cpus=4"),
                        EIGHT))
                .hasMessage(
                        "--side-by-side: --target b shares CPU 2 with a target before it: side by side, each target needs CPUs of its own");
        assertThatThrownBy(() -> TargetOptions.sideBySide(
                        targets(
                                "a=http://a:8428,tsdb-cpus=0,writer-cpus=0",
                                "b=http://b:8428,tsdb-cpus=2,writer-cpus=3"),
                        EIGHT))
                .hasMessageStartingWith("--side-by-side: --target a: tsdb-cpus 0 and writer-cpus 0 share CPU 0");
    }

    @Test
    void aMachineWithoutACpuLeftForThisCommandIsRefused() {
        // this machine's kind: 2 cores cannot hold two targets and the command
        assertThatThrownBy(() -> TargetOptions.sideBySide(
                        targets(
                                "a=http://a:8428,tsdb-cpus=0,writer-cpus=1",
                                "b=http://b:8428,tsdb-cpus=2,writer-cpus=3"),
                        CpuList.parse("0-1")))
                .hasMessageStartingWith("--side-by-side: --target b: ");
        assertThatThrownBy(() -> TargetOptions.sideBySide(
                        targets(
                                "a=http://a:8428,tsdb-cpus=0,writer-cpus=1",
                                "b=http://b:8428,tsdb-cpus=2,writer-cpus=3"),
                        CpuList.parse("0-3")))
                .hasMessage(
                        "--side-by-side: the targets take every CPU of this machine (0-3): leave at least one for this command and "
                                + "Kafka (this machine has 4)");
    }

    @Test
    void theCpuOptionsAreCpulistsWithSemicolons() {
        SearchTarget t = SearchTarget.parse("vm=http://vm:8428,tsdb-cpus=0-1;4,writer-cpus=2");
        assertThat(t.tsdbCpus()).isEqualTo("0-1,4");
        assertThat(t.writerCpus()).isEqualTo("2");
        assertThat(t.toString()).endsWith(",tsdb-cpus=0-1;4,writer-cpus=2");
        assertThatThrownBy(() -> SearchTarget.parse("vm=http://vm:8428,tsdb-cpus=zero"))
                .hasMessageContaining("tsdb-cpus must be a cpulist with ';' between its parts");
        assertThat(SearchTarget.parse("vm=http://vm:8428").tsdbCpus()).isNull();
    }
}
