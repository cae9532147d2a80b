package io.tsdbwriter.bench;

import java.util.List;

/** Ceiling arithmetic: which ceiling a cell is compared with, and the ratios. Stateless; thread-safe. */
public final class Ceilings {

    private Ceilings() {
    }

    /** The ceiling measured for the cell's shape, or null. */
    public static CeilingResult forCell(BenchCell cell, List<CeilingResult> ceilings) {
        for (CeilingResult c : ceilings) {
            if (c.shape().equals(cell.shape())) {
                return c;
            }
        }
        return null;
    }

    /** The cell's written samples per second ÷ its shape's ceiling; NaN when there is no usable ceiling. */
    public static double ratio(CellResult r, CeilingResult ceiling) {
        if (ceiling == null || !(ceiling.samplesPerSecond() > 0)) {
            return Double.NaN;
        }
        return r.samplesPerSecond() / ceiling.samplesPerSecond();
    }

    /** {@code cpuSeconds} per million {@code samples}; NaN when no samples. */
    public static double perMillion(double cpuSeconds, long samples) {
        return samples > 0 ? cpuSeconds / (samples / 1e6) : Double.NaN;
    }

}
