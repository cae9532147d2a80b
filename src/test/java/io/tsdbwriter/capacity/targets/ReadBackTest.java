package io.tsdbwriter.capacity.targets;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link ReadBack}'s cell, line and verdict: compared sample by sample, counted, unknown. */
class ReadBackTest {

    @ParameterizedTest(name = "{0} of {1}, {2} more, {3} mismatched: {4}")
    @CsvSource(
            delimiter = '|',
            value = {
                // expected | found | extra | mismatched | cell | missing
                "1234567 | 1234567 | 0  | 0 | all 1,234,567                          | false",
                "1234567 | 1234000 | 0  | 0 | 1,234,000 of 1,234,567                 | true",
                "1234567 | 1234567 | 12 | 0 | all 1,234,567 (+12 more)               | false",
                "1234567 | 1234567 | 0  | 3 | all 1,234,567 (3 mismatched)           | true",
                "1234567 | 1234567 | 12 | 3 | all 1,234,567 (+12 more, 3 mismatched) | true",
                "1234567 | 1234000 | 1  | 2 | 1,234,000 of 1,234,567 (+1 more, 2 mismatched) | true",
                "0       | 0       | 0  | 0 | all 0                                  | false",
            })
    void comparedCells(long expected, long found, long extra, long mismatched, String cell, boolean missing) {
        ReadBack back = ReadBack.compared(
                7, found + extra, new ReadBack.Exact(expected, found, extra, mismatched), "the export");
        assertThat(back.known()).isTrue();
        assertThat(back.isExact()).isTrue();
        assertThat(back.cell()).isEqualTo(cell);
        assertThat(back.missing()).isEqualTo(missing);
        assertThat(back.line())
                .isEqualTo("read back: " + cell + " samples fed, compared sample by sample on the export");
    }

    @ParameterizedTest(name = "{1} counted of {0} written: {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "1234567 | 1234567 | all 1,234,567            | false",
                "1234567 | 1234000 | 1,234,000 of 1,234,567   | true",
                "1234567 | 1234579 | all 1,234,567 (+12 more) | false",
            })
    void countedCells(long written, long counted, String cell, boolean missing) {
        ReadBack back = ReadBack.counted(written, counted, "Q");
        assertThat(back.isExact()).isFalse();
        assertThat(back.cell()).isEqualTo(cell);
        assertThat(back.missing()).isEqualTo(missing);
        assertThat(back.line()).isEqualTo("read back: " + cell + " samples written, counted by Q");
    }

    @Test
    void unknownIsADashAndNeverMissing() {
        ReadBack back = ReadBack.unknown(5, "no query API given");
        assertThat(back.cell()).isEqualTo("–");
        assertThat(back.missing()).isFalse();
        assertThat(back.isExact()).isFalse();
        assertThat(back.line()).isEqualTo("read back: unknown: no query API given");
    }

    @Test
    void inconsistentFiguresAreRefused() {
        assertThatThrownBy(() -> new ReadBack.Exact(5, 6, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ReadBack.Exact(5, 5, -1, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ReadBack.compared(5, -1, new ReadBack.Exact(5, 5, 0, 0), "s"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ReadBack.counted(5, -1, "s")).isInstanceOf(IllegalArgumentException.class);
    }
}
