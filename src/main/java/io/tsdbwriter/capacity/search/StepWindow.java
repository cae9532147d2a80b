package io.tsdbwriter.capacity.search;

import io.tsdbwriter.lab.IngestDelays;
import io.tsdbwriter.tsdbmetrics.Bottleneck;
import io.tsdbwriter.tsdbmetrics.CpuPerSamples;
import io.tsdbwriter.tsdbmetrics.PromSnapshot;
import io.tsdbwriter.tsdbmetrics.TargetFigures;
import java.util.ArrayList;
import java.util.List;

/**
 * The measured window of one capacity step (DESIGN §9): what the writer's and the targets' {@code /metrics} said at
 * every sample interval after the warm-up, and the figures drawn from them — expected and written samples/s
 * (least-squares slopes of the counters), efficiency, the consumer-lag trend, write latency p50/p99, permit wait
 * and the ingest delay p50/p99 per stage (from the histograms' growth), the writer's CPU, the targets' CPU, inserts
 * and slow-insert ratio, and the {@link Bottleneck.Evidence} they make. The efficiency is of the samples handled:
 * written, and dropped by a series limit ({@code --max-hourly-series}, {@code --max-daily-series}: their records are
 * committed, nothing is left to write); without a limit, of the samples written. Not thread-safe: one per step, filled
 * by the search thread.
 */
final class StepWindow {

    /** The writer's samples a series limit dropped, by reason (registered at the first drop). */
    static final String LIMIT_DROPPED = "tsdbwriter_series_limit_dropped_total";

    private final long samplesPerPoint;
    private final PromSnapshot writerAtStart;
    private final List<PromSnapshot> targetsAtStart;
    private final double writerCpuAtStart;
    private final List<double[]> written = new ArrayList<>(); // {seconds, samples written}
    private final List<double[]> handled = new ArrayList<>(); // {seconds, samples written + dropped by a series limit}
    private final List<double[]> expected = new ArrayList<>(); // {seconds, samples expected}
    private final List<double[]> lag = new ArrayList<>(); // {seconds, records}
    private double permitsSum;
    private double permitsCap = Double.NaN;
    private int permitsN;
    private double insertsSum;
    private int insertsN;
    private double insertsCap = Double.NaN;
    private double selectsSum;
    private int selectsN;
    private double selectsCap = Double.NaN;
    private PromSnapshot writerLast;
    private List<PromSnapshot> targetsLast;
    private double writerCpuLast;
    private int targetCoresCap;

    /**
     * @param samplesPerPoint M × N
     * @param writer          the writer's page at the window's start (null when unreadable)
     * @param targets         the targets' pages at the window's start (an element is null when unreadable)
     * @param writerCpu       the writer process's CPU seconds at the window's start
     */
    StepWindow(long samplesPerPoint, PromSnapshot writer, List<PromSnapshot> targets, double writerCpu) {
        this.samplesPerPoint = samplesPerPoint;
        this.writerAtStart = writer;
        this.targetsAtStart = targets;
        this.writerCpuAtStart = writerCpu;
        this.writerLast = writer;
        this.targetsLast = targets;
        this.writerCpuLast = writerCpu;
    }

    /**
     * One sample interval's reading.
     *
     * @param seconds       since the window's start
     * @param pointsTaken   source points handed to the producer so far
     * @param writer        the writer's page, or null when unreadable
     * @param writerCpu     the writer process's CPU seconds now
     * @param targets       the targets' pages
     */
    void add(double seconds, long pointsTaken, PromSnapshot writer, double writerCpu, List<PromSnapshot> targets) {
        expected.add(new double[] {seconds, pointsTaken * (double) samplesPerPoint});
        if (writer != null) {
            writerLast = writer;
            writerCpuLast = writerCpu;
            double w = writer.sum("tsdbwriter_samples_written_total");
            written.add(new double[] {seconds, w});
            handled.add(new double[] {seconds, w + limitDropped(writer)});
            double l = writer.sum("tsdbwriter_consumer_lag_records");
            if (!Double.isNaN(l)) {
                lag.add(new double[] {seconds, l});
            }
            double in = writer.sum("tsdbwriter_write_permits_in_use");
            if (!Double.isNaN(in)) {
                permitsSum += in;
                permitsN++;
                permitsCap = writer.sum("tsdbwriter_write_permits_capacity");
            }
        }
        sampleInserts(targets);
        if (targets.stream().anyMatch(t -> t != null)) {
            targetsLast = targets;
        }
    }

    /**
     * One reading of the targets' concurrent inserts alone, between the sample intervals: the gauge is an instant's
     * value, so the window's average (the share of the time the insert slots were busy) needs many readings —
     * with ten, one idle instant puts a busy slot below {@link Bottleneck#SATURATED}.
     *
     * @param targets the targets' pages (an element is null when unreadable)
     */
    void sampleInserts(List<PromSnapshot> targets) {
        double ic = TargetFigures.sum(targets, TargetFigures.INSERT_CURRENT);
        if (!Double.isNaN(ic)) {
            insertsSum += ic;
            insertsN++;
            insertsCap = TargetFigures.sum(targets, TargetFigures.INSERT_CAPACITY);
        }
        double sc = TargetFigures.sum(targets, "vm_concurrent_select_current");
        if (!Double.isNaN(sc)) {
            selectsSum += sc;
            selectsN++;
            selectsCap = TargetFigures.sum(targets, "vm_concurrent_select_capacity");
        }
    }

    /** Expected samples/s: the slope of the samples the producer was given. */
    double expectedRate() {
        return slope(expected);
    }

    /** Written samples/s: the slope of the writer's counter. */
    double writtenRate() {
        return slope(written);
    }

    /**
     * Handled ÷ expected (handled: written, and dropped by a series limit); NaN with fewer than two readings of the
     * writer.
     */
    double efficiency() {
        double e = expectedRate();
        return e > 0 && handled.size() >= 2 ? slope(handled) / e : Double.NaN;
    }

    /** The samples a series limit dropped so far by the writer of {@code page}: 0 when none (or no limit). */
    static double limitDropped(PromSnapshot page) {
        double d = page.sum(LIMIT_DROPPED);
        return Double.isNaN(d) ? 0 : d;
    }

    /**
     * The efficiency of the window's second half minus its first half's (the readings cut at the window's middle, each
     * half's rates least-squares slopes as the whole window's): how far the efficiency moves by itself within one step
     * ({@link EfficiencyNoise}). NaN when a half has fewer than two readings of the writer or of the input.
     */
    double halvesSpread() {
        if (expected.size() < 4) {
            return Double.NaN;
        }
        double middle = (expected.get(0)[0] + expected.get(expected.size() - 1)[0]) / 2;
        return halfEfficiency(middle, false) - halfEfficiency(middle, true);
    }

    private double halfEfficiency(double middle, boolean first) {
        List<double[]> w = handled.stream()
                .filter(p -> first ? p[0] <= middle : p[0] >= middle)
                .toList();
        List<double[]> x = expected.stream()
                .filter(p -> first ? p[0] <= middle : p[0] >= middle)
                .toList();
        double e = slope(x);
        return e > 0 && w.size() >= 2 ? slope(w) / e : Double.NaN;
    }

    /**
     * Whether the lag grows: its least-squares growth over the window exceeds both 1 % of the records produced in the
     * window and 5 s of input at {@code pointsPerSecond}; false with fewer than three readings.
     */
    boolean lagGrowing(double pointsPerSecond) {
        double windowSec =
                expected.size() >= 2 ? expected.get(expected.size() - 1)[0] - expected.get(0)[0] : Double.NaN;
        double producedInWindow = expectedRate() / samplesPerPoint * windowSec;
        return lag.size() >= 3 && slope(lag) * windowSec > Math.max(0.01 * producedInWindow, 5 * pointsPerSecond);
    }

    /** Whether the lag was read often enough to say whether it grows. */
    boolean lagKnown() {
        return lag.size() >= 3;
    }

    /** The first and last lag read (records); NaN when never read. */
    double lagFirst() {
        return lag.isEmpty() ? Double.NaN : lag.get(0)[1];
    }

    double lagLast() {
        return lag.isEmpty() ? Double.NaN : lag.get(lag.size() - 1)[1];
    }

    private boolean writerRead() {
        return writerAtStart != null && writerLast != null && writerLast != writerAtStart;
    }

    /** Write latency quantile {@code q} over the window (seconds); NaN when the writer was not read twice. */
    double latency(double q) {
        return writerRead()
                ? PromSnapshot.quantile(q, "tsdbwriter_write_latency_seconds", writerAtStart, writerLast)
                : Double.NaN;
    }

    /**
     * The writer's ingest delay p50/p99 (acknowledged, committed) over the batches that reached each stage in the window;
     * {@link IngestDelays#NONE} when the writer was not read twice.
     */
    IngestDelays delays() {
        return writerRead() ? IngestDelays.between(writerAtStart, writerLast) : IngestDelays.NONE;
    }

    /** Mean wait for a write permit over the window (ms); NaN when the writer was not read twice. */
    double permitWaitMs() {
        if (!writerRead()) {
            return Double.NaN;
        }
        double n = writerLast.sum("tsdbwriter_write_permit_wait_seconds_count")
                - writerAtStart.sum("tsdbwriter_write_permit_wait_seconds_count");
        return n > 0
                ? (writerLast.sum("tsdbwriter_write_permit_wait_seconds_sum")
                                - writerAtStart.sum("tsdbwriter_write_permit_wait_seconds_sum"))
                        / n
                        * 1000
                : 0;
    }

    /** The writer's CPU over the window (cores); NaN when the writer was not read twice. */
    double writerCpuCores() {
        return writerRead()
                ? (writerCpuLast - writerCpuAtStart) / ((writerLast.nanos() - writerAtStart.nanos()) / 1e9)
                : Double.NaN;
    }

    /** The targets' pages at the window's start (an element null when unreadable). */
    List<PromSnapshot> targetsAtStart() {
        return targetsAtStart;
    }

    /** The targets' pages at the window's last reading that read any. */
    List<PromSnapshot> targetsLast() {
        return targetsLast;
    }

    /** Samples the writer wrote from the window's first reading to its last; NaN when the writer was not read twice. */
    double samplesWritten() {
        return writerRead()
                ? writerLast.sum(CpuPerSamples.WRITTEN) - writerAtStart.sum(CpuPerSamples.WRITTEN)
                : Double.NaN;
    }

    /** The busiest target's CPU: {cores used, cores available}. */
    double[] targetCpu() {
        return TargetFigures.busiestCpu(targetsAtStart, targetsLast, targetCoresCap);
    }

    /** Caps each target's core count at the CPUs it was placed on ({@code --tsdb-cpus}); 0 = not placed. */
    StepWindow targetCoresCap(int cores) {
        this.targetCoresCap = cores;
        return this;
    }

    double insertsAvg() {
        return insertsN > 0 ? insertsSum / insertsN : Double.NaN;
    }

    double insertsCapacity() {
        return insertsCap;
    }

    /** The targets' {@code vm_concurrent_select_current} averaged over the window (summed over targets); NaN when none exports it. */
    double selectsAvg() {
        return selectsN > 0 ? selectsSum / selectsN : Double.NaN;
    }

    /** The targets' {@code vm_concurrent_select_capacity} (summed); NaN when none exports it. */
    double selectsCapacity() {
        return selectsCap;
    }

    /**
     * The window's series figures: {@code activeSeries} (by the schedule) and the targets' new series/s, slow row
     * inserts/s and series (TSID) cache misses/s over the window, each NaN when no target exposes it.
     */
    StepSeries series(double activeSeries) {
        return new StepSeries(
                activeSeries,
                TargetFigures.perSecond(targetsAtStart, targetsLast, TargetFigures.NEW_SERIES, ""),
                TargetFigures.perSecond(targetsAtStart, targetsLast, TargetFigures.SLOW_INSERTS, ""),
                TargetFigures.perSecond(
                        targetsAtStart, targetsLast, TargetFigures.CACHE_MISSES, TargetFigures.TSID_CACHE));
    }

    /**
     * What the window says for the bottleneck attribution.
     *
     * @param minEfficiency the passing efficiency
     * @param machineShare  the machine's CPU over the window, 0–1
     */
    Bottleneck.Evidence evidence(double minEfficiency, double pointsPerSecond, double machineShare) {
        double[] tcpu = targetCpu();
        return Bottleneck.Evidence.builder()
                .efficiency(efficiency())
                .minEfficiency(minEfficiency)
                .lagGrowing(lagKnown() ? (lagGrowing(pointsPerSecond) ? 1 : 0) : Double.NaN)
                .writerCpuCores(writerCpuCores())
                .writerCores(Runtime.getRuntime().availableProcessors())
                .permitsInUse(permitsN > 0 ? permitsSum / permitsN : Double.NaN)
                .permitsCapacity(permitsCap)
                .targetInsertCurrent(insertsAvg())
                .targetInsertCapacity(insertsCap)
                .targetCpuCores(tcpu[0])
                .targetCores(tcpu[1])
                .slowInsertRatio(TargetFigures.slowInsertRatio(targetsAtStart, targetsLast))
                .machineCpuShare(machineShare)
                .newSeriesRatio(TargetFigures.newSeriesRatio(targetsAtStart, targetsLast))
                .insertWaitsPerSecond(
                        TargetFigures.perSecond(targetsAtStart, targetsLast, TargetFigures.INSERT_LIMIT_REACHED, ""))
                .build();
    }

    /** Least-squares slope of y over x; NaN with fewer than two points. */
    static double slope(List<double[]> xy) {
        int n = xy.size();
        if (n < 2) {
            return Double.NaN;
        }
        double sx = 0;
        double sy = 0;
        for (double[] p : xy) {
            sx += p[0];
            sy += p[1];
        }
        double mx = sx / n;
        double my = sy / n;
        double num = 0;
        double den = 0;
        for (double[] p : xy) {
            num += (p[0] - mx) * (p[1] - my);
            den += (p[0] - mx) * (p[0] - mx);
        }
        return den > 0 ? num / den : Double.NaN;
    }
}
