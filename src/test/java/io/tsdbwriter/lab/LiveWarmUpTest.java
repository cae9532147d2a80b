package io.tsdbwriter.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class LiveWarmUpTest {

    @ParameterizedTest(name = "an input window of {0} s: the delay is measured after {1} s")
    @CsvSource({"300, 15", "60, 15", "40, 10", "8, 2"})
    void aLiveCellsDelayIsMeasuredAfterTheSearchsWarmUpOrAQuarterOfAShorterWindow(long windowSeconds, long warmUp) {
        assertThat(WriterCellRunner.liveWarmUp(Duration.ofSeconds(windowSeconds)))
                .isEqualTo(Duration.ofSeconds(warmUp));
    }
}
