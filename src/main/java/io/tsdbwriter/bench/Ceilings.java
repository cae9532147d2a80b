package io.tsdbwriter.bench;

import io.tsdbwriter.lab.BenchCell;
import io.tsdbwriter.lab.CellResult;
import java.util.List;

/** Ceiling arithmetic: which ceiling a cell is compared with, and the ratios. Stateless; thread-safe. */
public final class Ceilings {

    private Ceilings() {}

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
}
