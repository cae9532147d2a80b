package io.tsdbwriter.decode.otlp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link GoFormat#formatE3} against Go's {@code strconv.FormatFloat(v, 'e', 3, 64)} (values printed by Go 1.x). */
class GoFormatTest {

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "0.0078125 | 7.812e-03", // an exact tie: to even (Java's %.3e rounds it up)
                "1.0005 | 1.000e+00", // below the tie in binary
                "2.0005 | 2.001e+00", // above it
                "9.9995 | 9.999e+00",
                "0.00048828125 | 4.883e-04",
                "123456789 | 1.235e+08",
                "0.5 | 5.000e-01",
                "-2.5e-300 | -2.500e-300",
                "4.9e-324 | 4.941e-324",
                "1.7976931348623157e308 | 1.798e+308",
                "1e100 | 1.000e+100",
                "0 | 0.000e+00",
                "-0.0 | -0.000e+00",
                "NaN | NaN",
                "Infinity | +Inf",
                "-Infinity | -Inf"
            })
    void formatsAsGoWithFourSignificantDigits(double v, String go) {
        assertThat(GoFormat.formatE3(v)).isEqualTo(go);
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "-1e-128 | 1e-128 | -1.000e-128...1.000e-128",
                "-0.0 | 0 | -0.000e+00...0.000e+00",
                "NaN | Infinity | NaN...+Inf"
            })
    void vmrangeJoinsBothBounds(double lower, double upper, String vmrange) {
        assertThat(GoFormat.formatVmrange(lower, upper)).isEqualTo(vmrange);
    }
}
