package io.tsdbwriter.tsdbmetrics;

import io.tsdbwriter.tsdbmetrics.Bottleneck.Resource;
import io.tsdbwriter.tsdbmetrics.Bottleneck.Verdict;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleSupplier;
import java.util.function.IntSupplier;

/**
 * The bottleneck attribution of a running writer ({@code run}): every {@link #SAMPLE_INTERVAL_SECONDS} s
 * {@link #sample()} reads the write permits in use and the targets' {@code /metrics} (the endpoints' pages, as
 * {@code InsertCapacityProbe} reads them); at every report {@link #evaluate(double)} turns the interval into
 * {@link Bottleneck.Evidence} — efficiency from the report, the consumer lag's growth, the process's CPU, permits and
 * target inserts averaged, the busiest target's CPU, slow inserts — and keeps the verdict for
 * {@code tsdbwriter_limited_by} and the report line. The lag counts as growing when it grew over the interval by more
 * than 1 % of the records consumed meanwhile and by more than 5 s of them. Thread-safe (synchronized).
 */
public final class LiveAttribution {

    /** How often {@link #sample()} should run. */
    public static final long SAMPLE_INTERVAL_SECONDS = 2;
    /** The efficiency a running writer must reach to count as keeping up. */
    public static final double MIN_EFFICIENCY = 0.99;

    private final MetricsScraper scraper;
    private final List<String> targets;
    private final IntSupplier permitsInUse;
    private final IntSupplier permitsCapacity;
    private final DoubleSupplier lagRecords;
    private final DoubleSupplier recordsConsumed;
    private final DoubleSupplier cpuSeconds;
    private final DoubleSupplier machineCpuShare;
    private double machineSum;
    private int machineN;
    private final int cores = Runtime.getRuntime().availableProcessors();

    private List<PromSnapshot> first;
    private List<PromSnapshot> last;
    private double permitsSum;
    private int permitsN;
    private double insertsSum;
    private int insertsN;
    private double insertsCapacity = Double.NaN;
    private long startNanos = System.nanoTime();
    private double cpuStart;
    private double lagStart;
    private double consumedStart;
    private volatile Verdict verdict;
    /** Share mode: {@link Bottleneck#attributeShare}, no lag. */
    private final boolean share;

    private final EnumMap<Resource, Integer> windows = new EnumMap<>(Resource.class);

    /**
     * @param targets         the targets' {@code /metrics} URLs
     * @param lagRecords      the consumer lag in records over every assigned partition
     * @param recordsConsumed records consumed so far
     * @param cpuSeconds      this process's CPU time so far (NaN when unknown)
     * @param machineCpuShare the machine's recent busy CPU share, 0..1 (Micrometer's {@code system.cpu.usage}; NaN when unknown)
     */
    public LiveAttribution(
            MetricsScraper scraper,
            List<String> targets,
            IntSupplier permitsInUse,
            IntSupplier permitsCapacity,
            DoubleSupplier lagRecords,
            DoubleSupplier recordsConsumed,
            DoubleSupplier cpuSeconds,
            DoubleSupplier machineCpuShare) {
        this(
                scraper,
                targets,
                permitsInUse,
                permitsCapacity,
                lagRecords,
                recordsConsumed,
                cpuSeconds,
                machineCpuShare,
                false);
    }

    /**
     * @param share share mode ({@code --consumer-mode share}): the verdict by {@link Bottleneck#attributeShare} (the
     *              acquisition, the write permits or the TSDB), the lag unknown (a share group has no per-member lag)
     */
    public LiveAttribution(
            MetricsScraper scraper,
            List<String> targets,
            IntSupplier permitsInUse,
            IntSupplier permitsCapacity,
            DoubleSupplier lagRecords,
            DoubleSupplier recordsConsumed,
            DoubleSupplier cpuSeconds,
            DoubleSupplier machineCpuShare,
            boolean share) {
        this.share = share;
        if (share) {
            lagRecords = () -> Double.NaN;
        }
        this.machineCpuShare = machineCpuShare;
        this.scraper = scraper;
        this.targets = List.copyOf(targets);
        this.permitsInUse = permitsInUse;
        this.permitsCapacity = permitsCapacity;
        this.lagRecords = lagRecords;
        this.recordsConsumed = recordsConsumed;
        this.cpuSeconds = cpuSeconds;
        this.cpuStart = cpuSeconds.getAsDouble();
        this.lagStart = lagRecords.getAsDouble();
        this.consumedStart = recordsConsumed.getAsDouble();
    }

    /** Reads the permits and the targets once (never throws; unreadable pages make figures unknown). */
    public void sample() {
        List<PromSnapshot> ts = scraper.scrapeAll(targets);
        synchronized (this) {
            permitsSum += permitsInUse.getAsInt();
            double m = machineCpuShare.getAsDouble();
            if (m >= 0 && m <= 1) {
                machineSum += m;
                machineN++;
            }
            permitsN++;
            double ic = TargetFigures.sum(ts, TargetFigures.INSERT_CURRENT);
            if (!Double.isNaN(ic)) {
                insertsSum += ic;
                insertsN++;
                insertsCapacity = TargetFigures.sum(ts, TargetFigures.INSERT_CAPACITY);
            }
            if (first == null) {
                first = ts;
            }
            last = ts;
        }
    }

    /** Attributes the interval since the last call, given the report's efficiency over it; starts the next interval. */
    public synchronized Verdict evaluate(double efficiency) {
        long now = System.nanoTime();
        double seconds = Math.max(1e-3, (now - startNanos) / 1e9);
        double cpu = cpuSeconds.getAsDouble();
        double lag = lagRecords.getAsDouble();
        double consumed = recordsConsumed.getAsDouble();
        double growth = lag - lagStart;
        double consumedIn = consumed - consumedStart;
        double lagGrowing = Double.isNaN(growth)
                ? Double.NaN
                : (growth > Math.max(0.01 * consumedIn, 5 * consumedIn / seconds) && growth > 0 ? 1 : 0);
        double[] tcpu = first == null || last == null || first == last
                ? new double[] {Double.NaN, Double.NaN, Double.NaN}
                : TargetFigures.busiestCpu(first, last);
        double slow = first == null || last == null ? Double.NaN : TargetFigures.slowInsertRatio(first, last);
        Bottleneck.Evidence e = Bottleneck.Evidence.builder()
                .efficiency(efficiency)
                .minEfficiency(MIN_EFFICIENCY)
                .lagGrowing(lagGrowing)
                .writerCpuCores((cpu - cpuStart) / seconds)
                .writerCores(cores)
                .permitsInUse(permitsN > 0 ? permitsSum / permitsN : Double.NaN)
                .permitsCapacity(permitsCapacity.getAsInt())
                .targetInsertCurrent(insertsN > 0 ? insertsSum / insertsN : Double.NaN)
                .targetInsertCapacity(insertsCapacity)
                .targetCpuCores(tcpu[0])
                .targetCores(tcpu[1])
                .slowInsertRatio(slow)
                .machineCpuShare(machineN > 0 ? machineSum / machineN : Double.NaN)
                .newSeriesRatio(first == null || last == null ? Double.NaN : TargetFigures.newSeriesRatio(first, last))
                .insertWaitsPerSecond(
                        first == null || last == null
                                ? Double.NaN
                                : TargetFigures.perSecond(first, last, TargetFigures.INSERT_LIMIT_REACHED, ""))
                .build();
        Verdict v = share ? Bottleneck.attributeShare(e) : Bottleneck.attribute(e);
        verdict = v;
        windows.merge(v.resource(), 1, Integer::sum);
        startNanos = now;
        cpuStart = cpu;
        lagStart = lag;
        consumedStart = consumed;
        first = last;
        permitsSum = 0;
        permitsN = 0;
        insertsSum = 0;
        insertsN = 0;
        machineSum = 0;
        machineN = 0;
        return v;
    }

    /** The last verdict's resource ({@link Resource#UNKNOWN} before the first). */
    public Resource current() {
        Verdict v = verdict;
        return v == null ? Resource.UNKNOWN : v.resource();
    }

    /**
     * What limited the run most often: the resource of the most report windows ({@link Resource#UNKNOWN} counts only
     * when no window named another; ties go to the first in {@link Resource}'s order); UNKNOWN before the first window.
     */
    public synchronized Resource mostOften() {
        Resource best = Resource.UNKNOWN;
        int most = 0;
        for (var w : windows.entrySet()) {
            if (w.getKey() != Resource.UNKNOWN && w.getValue() > most) {
                best = w.getKey();
                most = w.getValue();
            }
        }
        return best;
    }

    /** The report line with the verdict appended: {@code … | limited_by=<resource> (<reason>) [<figures>]}. */
    public static String annotate(String reportLine, Verdict v) {
        return String.format(
                Locale.ROOT,
                "%s | limited_by=%s (%s) [%s]",
                reportLine,
                v.resource().label(),
                v.reason(),
                v.evidence());
    }
}
