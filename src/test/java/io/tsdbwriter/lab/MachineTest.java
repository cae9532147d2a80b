package io.tsdbwriter.lab;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class MachineTest {

    record Case(String name, List<String> cpuinfo, String model) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<Case> cases() {
        return List.of(
                new Case(
                        "x86: the first model name",
                        List.of(
                                "processor\t: 0",
                                "vendor_id\t: AuthenticAMD",
                                "model name\t: AMD EPYC",
                                "processor\t: 1",
                                "model name\t: AMD EPYC"),
                        "AMD EPYC"),
                new Case(
                        "blanks collapsed",
                        List.of("model name\t:   Intel(R)  Xeon(R)   Processor  "),
                        "Intel(R) Xeon(R) Processor"),
                new Case("no model name (arm64 names none)", List.of("processor\t: 0", "BogoMIPS\t: 50.00"), ""),
                new Case("model is not model name", List.of("model\t\t: 1"), ""),
                new Case("empty", List.of(), ""));
    }

    @ParameterizedTest
    @MethodSource("cases")
    void cpuModelIsTheFirstModelNameLine(Case c) {
        assertEquals(c.model(), Machine.cpuModel(c.cpuinfo()));
    }
}
