package io.tsdbwriter.tsdbmetrics;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Names the resource that binds throughput, from one window of evidence (DESIGN §9; the rules, thresholds and
 * their reasoning are in {@code docs/capacity.md}). Pure logic: no I/O, no clock. Stateless; thread-safe.
 *
 * <p>Rules, in this order (the first that holds decides; a resource found saturated too is listed as "also"):
 * <ol>
 *   <li>efficiency unknown (NaN: nothing was expected in the window, or the writer read fewer than twice) →
 *       {@link Resource#UNKNOWN};</li>
 *   <li>keeping up (efficiency ≥ the minimum and the consumer lag not growing) → {@link Resource#INPUT}: the input
 *       itself limits; the verdict still prints every resource's use (the headroom);</li>
 *   <li>the target's CPU busy (below) or its slow inserts high (below) while new series are ≥ {@link #NEW_SERIES} of
 *       the rows inserted → {@link Resource#SERIES_CHURN}: new-series creation (index, caches) is what costs;</li>
 *   <li>the target's CPU ≥ {@link #CPU_BUSY} of its cores → {@link Resource#TARGET_CPU} (when the writer's CPU is
 *       busy too, the higher share of cores wins; equal → the target);</li>
 *   <li>storage: slow row inserts ≥ {@link #SLOW_INSERTS} of rows inserted → {@link Resource#STORAGE};</li>
 *   <li>the target's concurrent inserts ≥ {@link #SATURATED} of its capacity while the machine's CPU (all processes on
 *       the writer's machine, the target too when it runs there) is ≥ {@link #MACHINE_BUSY} of its cores →
 *       {@link Resource#MACHINE_CPU}: the processes' CPU figures then show what they got, not what they need;</li>
 *   <li>the target's concurrent inserts ≥ {@link #SATURATED} of its capacity with its CPU below {@link #CPU_LOW}
 *       → {@link Resource#TARGET_INSERT_CONCURRENCY} (the proof of concept's finding); with its CPU unknown →
 *       {@link Resource#UNKNOWN}. Requests waiting for an insert slot at {@link InsertLimit#WAITS_PER_SECOND}/s or more
 *       ({@code vm_concurrent_insert_limit_reached_total}) count as saturated too, in this rule and the next ones:
 *       VictoriaMetrics frees a request's slot while it reads from the network, so the gauge averages low while
 *       requests queue (with {@code -maxConcurrentInserts=1}, 0–20 %);</li>
 *   <li>the writer's CPU ≥ {@link #CPU_BUSY} of its cores → {@link Resource#WRITER_CPU};</li>
 *   <li>the writer's permits in use ≥ {@link #SATURATED} of its permits while the target's inserts are below
 *       {@link #SATURATED} of capacity and no request waits for an insert slot (the target idles) →
 *       {@link Resource#WRITER_PERMITS}; the target's inserts or its waits unknown → {@link Resource#UNKNOWN};</li>
 *   <li>nothing above saturated and the machine's CPU busy → {@link Resource#MACHINE_CPU};</li>
 *   <li>nothing above saturated, the lag growing, and every figure known → {@link Resource#KAFKA_FETCH} (the readers
 *       wait on poll); anything unknown → {@link Resource#UNKNOWN}, listing the missing figures;</li>
 *   <li>otherwise (falling behind, the lag not growing, nothing saturated) → {@link Resource#UNKNOWN}: its reason lists
 *       the missing figures ({@link Evidence#missing()}), or, every figure known, names the resource nearest to
 *       saturation and says the shortfall is in-flight samples or noise.</li>
 * </ol>
 * A missing figure is NaN; a rule that needs it never fires on a guess.
 *
 * <p>Share mode ({@link #attributeShare}, KIP-932): a member acquires records only as fast as it writes them and has no
 * partition lag of its own, so rules 1, 2 and 11 mean nothing there: no records in the window, or nothing saturated on the
 * write side (rules 3–10: the write permits, the TSDB, the CPUs) → {@link Resource#ACQUISITION}.
 */
public final class Bottleneck {

    /** Permits or inserts in use, averaged over the window, at or above this share of capacity: saturated. */
    public static final double SATURATED = 0.90;
    /** CPU used at or above this share of the process's cores: busy. */
    public static final double CPU_BUSY = 0.85;
    /** Target CPU below this share of its cores: low (the insert limiter, not the CPU, holds requests back). */
    public static final double CPU_LOW = 0.50;
    /** The machine's busy CPU at or above this share of its cores: saturated by all its processes together. */
    public static final double MACHINE_BUSY = 0.90;
    /** Slow row inserts per row inserted at or above this: storage binds (VictoriaMetrics' own alert uses 5 %). */
    public static final double SLOW_INSERTS = 0.05;
    /**
     * New series per row inserted at or above this: high churn — the threshold of VictoriaMetrics' own
     * {@code TooHighChurnRate} alert ({@code vm_new_timeseries_created_total} ÷ {@code vm_rows_inserted_total} > 10 %).
     */
    public static final double NEW_SERIES = 0.10;

    /** What can bind; {@link #label()} is the {@code resource} tag of {@code tsdbwriter_limited_by}. */
    public enum Resource {
        WRITER_CPU("writer-cpu"),
        WRITER_PERMITS("writer-permits"),
        TARGET_INSERT_CONCURRENCY("target-insert-concurrency"),
        TARGET_CPU("target-cpu"),
        STORAGE("storage"),
        /** New-series creation ({@code --churn-interval}): index writes and cache misses of every new series. */
        SERIES_CHURN("series-churn"),
        MACHINE_CPU("machine-cpu"),
        KAFKA_FETCH("kafka-fetch"),
        INPUT("input"),
        /** Share mode: what the broker hands the share consumers (records available, acquired per poll, locks per partition). */
        ACQUISITION("acquisition"),
        /**
         * The read load ({@code capacity --query-rate}): its queries fail or are slow, or the target's selects are full
         * while its CPU is busy ({@link ReadPath}, which decides before the rules above).
         */
        READ_PATH("read-path"),
        /** A write endpoint in a configuration fault (DESIGN §6): nothing is written until the flag is right. */
        WRITE_FAULT("write-fault"),
        UNKNOWN("unknown");

        private final String label;

        Resource(String label) {
            this.label = label;
        }

        /** The lower-case hyphenated name printed and exported. */
        public String label() {
            return label;
        }
    }

    /**
     * The figures of one window. NaN = not known (not measured, target's {@code /metrics} unreadable). Build it by name
     * with {@link #builder()}: fifteen doubles in a row are easy to misplace. Immutable.
     *
     * @param efficiency          samples written ÷ samples expected in the window (0..1, may exceed 1 while a backlog drains)
     * @param minEfficiency       the efficiency a run must reach to keep up (e.g. 0.99)
     * @param lagGrowing          1 when the consumer lag grew over the window, 0 when not, NaN when unknown
     * @param writerCpuCores      cores the writer used (CPU-seconds per second)
     * @param writerCores         cores available to the writer
     * @param permitsInUse        write permits held, averaged over the window
     * @param permitsCapacity     write permits in all
     * @param targetInsertCurrent the target's {@code vm_concurrent_insert_current}, averaged (summed over targets)
     * @param targetInsertCapacity the target's {@code vm_concurrent_insert_capacity} (summed over targets)
     * @param targetCpuCores      the busiest target's CPU (rate of {@code process_cpu_seconds_total})
     * @param targetCores         that target's cores ({@code process_cpu_cores_available})
     * @param slowInsertRatio     {@code vm_slow_row_inserts_total} ÷ {@code vm_rows_inserted_total} over the window
     * @param machineCpuShare     busy CPU of the writer's machine (all processes) ÷ its cores over the window
     * @param newSeriesRatio      {@code vm_new_timeseries_created_total} ÷ {@code vm_rows_inserted_total} over the window
     * @param insertWaitsPerSecond insert requests that found every insert slot taken and waited, per second over the window:
     *                            the growth of {@code vm_concurrent_insert_limit_reached_total} (summed over targets). The
     *                            limiter frees a request's slot while it reads from the network (VictoriaMetrics
     *                            {@code lib/writeconcurrencylimiter}), so {@code vm_concurrent_insert_current} can average
     *                            well below capacity while requests queue; this counter shows the queueing
     */
    public record Evidence(
            double efficiency,
            double minEfficiency,
            double lagGrowing,
            double writerCpuCores,
            double writerCores,
            double permitsInUse,
            double permitsCapacity,
            double targetInsertCurrent,
            double targetInsertCapacity,
            double targetCpuCores,
            double targetCores,
            double slowInsertRatio,
            double machineCpuShare,
            double newSeriesRatio,
            double insertWaitsPerSecond) {

        /** A builder with every field at its default (see {@link Builder}). */
        public static Builder builder() {
            return new Builder();
        }

        /** A builder holding these values, to change some. */
        public Builder toBuilder() {
            Builder b = new Builder();
            b.efficiency = efficiency;
            b.minEfficiency = minEfficiency;
            b.lagGrowing = lagGrowing;
            b.writerCpuCores = writerCpuCores;
            b.writerCores = writerCores;
            b.permitsInUse = permitsInUse;
            b.permitsCapacity = permitsCapacity;
            b.targetInsertCurrent = targetInsertCurrent;
            b.targetInsertCapacity = targetInsertCapacity;
            b.targetCpuCores = targetCpuCores;
            b.targetCores = targetCores;
            b.slowInsertRatio = slowInsertRatio;
            b.machineCpuShare = machineCpuShare;
            b.newSeriesRatio = newSeriesRatio;
            b.insertWaitsPerSecond = insertWaitsPerSecond;
            return b;
        }

        /**
         * Builds an {@link Evidence} by name. Every figure defaults to NaN (not known), so a figure left unset never makes a
         * rule fire. Not thread-safe; {@link #build()} never throws.
         */
        public static final class Builder {
            private double efficiency = Double.NaN;
            private double minEfficiency = Double.NaN;
            private double lagGrowing = Double.NaN;
            private double writerCpuCores = Double.NaN;
            private double writerCores = Double.NaN;
            private double permitsInUse = Double.NaN;
            private double permitsCapacity = Double.NaN;
            private double targetInsertCurrent = Double.NaN;
            private double targetInsertCapacity = Double.NaN;
            private double targetCpuCores = Double.NaN;
            private double targetCores = Double.NaN;
            private double slowInsertRatio = Double.NaN;
            private double machineCpuShare = Double.NaN;
            private double newSeriesRatio = Double.NaN;
            private double insertWaitsPerSecond = Double.NaN;

            private Builder() {}

            /** Samples written ÷ samples expected in the window. */
            public Builder efficiency(double value) {
                this.efficiency = value;
                return this;
            }

            /** The efficiency a run must reach to keep up (e.g. 0.99). */
            public Builder minEfficiency(double value) {
                this.minEfficiency = value;
                return this;
            }

            /** 1 when the consumer lag grew over the window, 0 when not, NaN when unknown. */
            public Builder lagGrowing(double value) {
                this.lagGrowing = value;
                return this;
            }

            /** Cores the writer used (CPU-seconds per second). */
            public Builder writerCpuCores(double value) {
                this.writerCpuCores = value;
                return this;
            }

            /** Cores available to the writer. */
            public Builder writerCores(double value) {
                this.writerCores = value;
                return this;
            }

            /** Write permits held, averaged over the window. */
            public Builder permitsInUse(double value) {
                this.permitsInUse = value;
                return this;
            }

            /** Write permits in all. */
            public Builder permitsCapacity(double value) {
                this.permitsCapacity = value;
                return this;
            }

            /** The targets' concurrent inserts, averaged (summed over targets). */
            public Builder targetInsertCurrent(double value) {
                this.targetInsertCurrent = value;
                return this;
            }

            /** The targets' insert capacity (summed over targets). */
            public Builder targetInsertCapacity(double value) {
                this.targetInsertCapacity = value;
                return this;
            }

            /** The busiest target's CPU, cores. */
            public Builder targetCpuCores(double value) {
                this.targetCpuCores = value;
                return this;
            }

            /** That target's cores. */
            public Builder targetCores(double value) {
                this.targetCores = value;
                return this;
            }

            /** Slow row inserts ÷ rows inserted over the window. */
            public Builder slowInsertRatio(double value) {
                this.slowInsertRatio = value;
                return this;
            }

            /** Busy CPU of the writer's machine ÷ its cores over the window. */
            public Builder machineCpuShare(double value) {
                this.machineCpuShare = value;
                return this;
            }

            /** New series ÷ rows inserted over the window. */
            public Builder newSeriesRatio(double value) {
                this.newSeriesRatio = value;
                return this;
            }

            /** Insert requests that waited for an insert slot, per second over the window. */
            public Builder insertWaitsPerSecond(double value) {
                this.insertWaitsPerSecond = value;
                return this;
            }

            /** The writer's CPU: {@code cores} used of the {@code of} it has. */
            public Builder writerCpu(double cores, double of) {
                return writerCpuCores(cores).writerCores(of);
            }

            /** The write permits: {@code inUse} (averaged) of {@code of} in all. */
            public Builder permits(double inUse, double of) {
                return permitsInUse(inUse).permitsCapacity(of);
            }

            /** The targets' concurrent inserts: {@code current} (averaged) of their capacity {@code of}. */
            public Builder targetInserts(double current, double of) {
                return targetInsertCurrent(current).targetInsertCapacity(of);
            }

            /** The busiest target's CPU: {@code cores} used of the {@code of} it has. */
            public Builder targetCpu(double cores, double of) {
                return targetCpuCores(cores).targetCores(of);
            }

            /** The evidence. */
            public Evidence build() {
                return new Evidence(
                        efficiency,
                        minEfficiency,
                        lagGrowing,
                        writerCpuCores,
                        writerCores,
                        permitsInUse,
                        permitsCapacity,
                        targetInsertCurrent,
                        targetInsertCapacity,
                        targetCpuCores,
                        targetCores,
                        slowInsertRatio,
                        machineCpuShare,
                        newSeriesRatio,
                        insertWaitsPerSecond);
            }
        }

        /** Writer CPU as a share of its cores, or NaN. */
        public double writerCpuShare() {
            return share(writerCpuCores, writerCores);
        }

        /** Permits in use as a share of all permits, or NaN. */
        public double permitShare() {
            return share(permitsInUse, permitsCapacity);
        }

        /** Target inserts as a share of its insert capacity, or NaN. */
        public double insertShare() {
            return share(targetInsertCurrent, targetInsertCapacity);
        }

        /** Target CPU as a share of its cores, or NaN. */
        public double targetCpuShare() {
            return share(targetCpuCores, targetCores);
        }

        private static double share(double used, double of) {
            return Double.isFinite(used) && Double.isFinite(of) && of > 0 ? used / of : Double.NaN;
        }

        /**
         * The figures a rule could need that are unknown (NaN), each with what gives it ({@link EvidenceGaps#missing});
         * empty when every one is known.
         */
        public List<String> missing() {
            return EvidenceGaps.missing(this);
        }

        /** The figures, printed: every verdict rests on these. */
        public String describe() {
            return String.format(
                    Locale.ROOT,
                    "efficiency %s (min %s), lag %s, writer CPU %s of %s cores (%s), permits %s of %s (%s), target inserts %s of %s (%s),"
                            + " target CPU %s of %s cores (%s), slow inserts %s, new series %s of rows, machine CPU %s, insert waits %s",
                    pct(efficiency),
                    pct(minEfficiency),
                    Double.isNaN(lagGrowing) ? "n/a" : (lagGrowing > 0 ? "growing" : "steady"),
                    num(writerCpuCores),
                    num(writerCores),
                    pct(writerCpuShare()),
                    num(permitsInUse),
                    num(permitsCapacity),
                    pct(permitShare()),
                    num(targetInsertCurrent),
                    num(targetInsertCapacity),
                    pct(insertShare()),
                    num(targetCpuCores),
                    num(targetCores),
                    pct(targetCpuShare()),
                    pct(slowInsertRatio),
                    pct(newSeriesRatio),
                    pct(machineCpuShare),
                    Double.isFinite(insertWaitsPerSecond) ? num(insertWaitsPerSecond) + "/s" : "n/a");
        }
    }

    /**
     * The verdict.
     *
     * @param resource what binds
     * @param reason   the rule that decided, with its numbers
     * @param advice   what to change, or empty
     * @param also     other resources found saturated in the same window (ties, in rule order)
     * @param evidence every figure of the window ({@link Evidence#describe()})
     */
    public record Verdict(Resource resource, String reason, String advice, List<Resource> also, String evidence) {

        /**
         * One line: {@code limited by <resource>: <reason>[; also <…>][ → <advice>] [<evidence>]}; an
         * {@link Resource#UNKNOWN} verdict reads {@code limited by: not attributed — <reason>}, its reason saying which
         * figure was missing (or, every one measured, that none is saturated).
         */
        @Override
        public String toString() {
            StringBuilder b = resource == Resource.UNKNOWN
                    ? new StringBuilder("limited by: not attributed — ").append(reason)
                    : new StringBuilder("limited by ")
                            .append(resource.label())
                            .append(": ")
                            .append(reason);
            if (!also.isEmpty()) {
                b.append("; also saturated: ")
                        .append(String.join(
                                ", ", also.stream().map(Resource::label).toList()));
            }
            if (!advice.isEmpty()) {
                b.append(" -> ").append(advice);
            }
            return b.append(" [").append(evidence).append(']').toString();
        }
    }

    private Bottleneck() {}

    /**
     * Applies the rules of the class comment to one window.
     *
     * <p>Longer than ~60 lines on purpose: one ordered decision list, first match wins, in the class comment's order;
     * read top to bottom it is the rule. Split into methods, the order that makes it right would be spread over them.
     */
    public static Verdict attribute(Evidence e) {
        String ev = e.describe();
        if (Double.isNaN(e.efficiency())) {
            return new Verdict(
                    Resource.UNKNOWN,
                    "efficiency unknown: no samples were expected in the window, or the writer's "
                            + "/metrics was read fewer than twice in it",
                    "",
                    List.of(),
                    ev);
        }
        boolean keepingUp = e.efficiency() >= e.minEfficiency() && !(e.lagGrowing() > 0);
        if (keepingUp) {
            return new Verdict(
                    Resource.INPUT,
                    String.format(
                            Locale.ROOT,
                            "efficiency %s with the lag steady: the writer keeps up with its input",
                            pct(e.efficiency())),
                    "",
                    saturated(
                            e.targetCpuShare() >= CPU_BUSY,
                            e.slowInsertRatio() >= SLOW_INSERTS,
                            e.insertShare() >= SATURATED,
                            e.writerCpuShare() >= CPU_BUSY,
                            e.permitShare() >= SATURATED,
                            null),
                    ev);
        }
        Verdict w = writeSide(e, ev);
        if (w != null) {
            return w;
        }
        if (e.lagGrowing() > 0) {
            if (Double.isNaN(e.writerCpuShare())
                    || Double.isNaN(e.targetCpuShare())
                    || Double.isNaN(e.insertShare())
                    || Double.isNaN(e.permitShare())) {
                return new Verdict(
                        Resource.UNKNOWN,
                        "the lag grows and no known resource is saturated; missing: " + String.join(", ", e.missing()),
                        "give the target's /metrics (--target-metrics-url)",
                        List.of(),
                        ev);
            }
            return new Verdict(
                    Resource.KAFKA_FETCH,
                    String.format(
                            Locale.ROOT,
                            "the lag grows while writer CPU (%s), permits (%s), target inserts (%s) and target CPU (%s) all have room:"
                                    + " the readers wait on poll",
                            pct(e.writerCpuShare()),
                            pct(e.permitShare()),
                            pct(e.insertShare()),
                            pct(e.targetCpuShare())),
                    "raise --parallelism, fetch.max.bytes / max.partition.fetch.bytes, or add partitions",
                    List.of(),
                    ev);
        }
        String shortOf = String.format(
                Locale.ROOT,
                "efficiency %s below %s with the lag not growing",
                pct(e.efficiency()),
                pct(e.minEfficiency()));
        if (!e.missing().isEmpty()) {
            return new Verdict(
                    Resource.UNKNOWN,
                    shortOf + "; no resource can be named, missing: " + String.join(", ", e.missing()),
                    "give the target's /metrics (--target-metrics-url)",
                    List.of(),
                    ev);
        }
        return new Verdict(
                Resource.UNKNOWN,
                shortOf + "; every figure was measured and none is saturated (the nearest: "
                        + EvidenceGaps.nearest(e)
                        + (Double.isNaN(e.insertWaitsPerSecond())
                                ? "; insert waits unknown: " + "vm_concurrent_insert_limit_reached_total absent"
                                : "")
                        + "): the writer keeps pace with its input, the shortfall is samples still in flight at "
                        + "the window's end or the measurement's noise",
                "",
                List.of(),
                ev);
    }

    /**
     * The share-mode rules of the class comment: no records acquired, or the write side's verdict (rules 3–10), or
     * {@link Resource#ACQUISITION}. The lag and the efficiency decide nothing here.
     */
    public static Verdict attributeShare(Evidence e) {
        String ev = e.describe();
        String advice =
                "more share consumers (--parallelism, more processes) or larger acquisitions (--consumer-property "
                        + "max.poll.records; the group's share.record.lock.partition limit group.share.partition.max.record.locks)";
        if (Double.isNaN(e.efficiency())) {
            return new Verdict(
                    Resource.ACQUISITION,
                    "no records acquired in the window: the share group had none available for this "
                            + "process's consumers",
                    "",
                    List.of(),
                    ev);
        }
        Verdict w = writeSide(e, ev);
        if (w != null) {
            return w;
        }
        return new Verdict(
                Resource.ACQUISITION,
                String.format(
                        Locale.ROOT,
                        "the share consumers write what the broker hands them,"
                                + " with room on the write side: writer CPU %s, permits %s, target inserts %s, target CPU %s",
                        pct(e.writerCpuShare()),
                        pct(e.permitShare()),
                        pct(e.insertShare()),
                        pct(e.targetCpuShare())),
                advice,
                List.of(),
                ev);
    }

    /** Rules 3–10 of the class comment (the write side and the machine), or null when none holds. */
    private static Verdict writeSide(Evidence e, String ev) {
        double wCpu = e.writerCpuShare();
        double tCpu = e.targetCpuShare();
        double ins = e.insertShare();
        double per = e.permitShare();
        boolean wCpuBusy = wCpu >= CPU_BUSY;
        boolean tCpuBusy = tCpu >= CPU_BUSY;
        boolean storage = e.slowInsertRatio() >= SLOW_INSERTS;
        boolean insSat = InsertLimit.full(e);
        boolean perSat = per >= SATURATED;
        if ((tCpuBusy || storage) && e.newSeriesRatio() >= NEW_SERIES) {
            return new Verdict(
                    Resource.SERIES_CHURN,
                    String.format(
                            Locale.ROOT,
                            "new-series creation: new series %s of rows inserted (>= %s, VictoriaMetrics' TooHighChurnRate) with the target's "
                                    + "CPU %s and slow inserts %s",
                            pct(e.newSeriesRatio()),
                            pct(NEW_SERIES),
                            pct(tCpu),
                            pct(e.slowInsertRatio())),
                    "fewer new series per second (a longer --churn-interval or a smaller N) or more vmstorage memory and CPU",
                    saturated(tCpuBusy, storage, insSat, wCpuBusy, perSat, null),
                    ev);
        }
        if (tCpuBusy && !(wCpuBusy && wCpu > tCpu)) {
            return new Verdict(
                    Resource.TARGET_CPU,
                    String.format(
                            Locale.ROOT,
                            "the target's CPU %s of %s cores (%s >= %s)",
                            num(e.targetCpuCores()),
                            num(e.targetCores()),
                            pct(tCpu),
                            pct(CPU_BUSY)),
                    "give the target more cores or add vminsert/vmstorage nodes",
                    saturated(false, storage, insSat, wCpuBusy, perSat, Resource.TARGET_CPU),
                    ev);
        }
        if (storage) {
            return new Verdict(
                    Resource.STORAGE,
                    String.format(
                            Locale.ROOT,
                            "slow row inserts %s of rows inserted (>= %s)",
                            pct(e.slowInsertRatio()),
                            pct(SLOW_INSERTS)),
                    "vmstorage misses its caches (new series, too little memory): give vmstorage memory or add vmstorage nodes",
                    saturated(tCpuBusy, false, insSat, wCpuBusy, perSat, Resource.STORAGE),
                    ev);
        }
        boolean machineBusy = e.machineCpuShare() >= MACHINE_BUSY;
        if (insSat) {
            if (machineBusy) {
                return machine(e, wCpu, tCpu, saturated(false, false, true, wCpuBusy, perSat, null), ev);
            }
            if (Double.isNaN(tCpu)) {
                return new Verdict(
                        Resource.UNKNOWN,
                        InsertLimit.reason(e) + " but its CPU is unknown (process_cpu_seconds_total"
                                + " absent, or its /metrics read once): the limiter or the CPU",
                        "give the target's /metrics",
                        List.of(),
                        ev);
            }
            if (tCpu < CPU_LOW) {
                return new Verdict(
                        Resource.TARGET_INSERT_CONCURRENCY,
                        String.format(
                                Locale.ROOT,
                                "%s while its CPU is %s of its cores (< %s)",
                                InsertLimit.reason(e),
                                pct(tCpu),
                                pct(CPU_LOW)),
                        "raise -maxConcurrentInserts or add vminsert nodes",
                        saturated(false, false, false, wCpuBusy, perSat, null),
                        ev);
            }
        }
        if (wCpuBusy) {
            return new Verdict(
                    Resource.WRITER_CPU,
                    String.format(
                            Locale.ROOT,
                            "the writer's CPU %s of %s cores (%s >= %s)",
                            num(e.writerCpuCores()),
                            num(e.writerCores()),
                            pct(wCpu),
                            pct(CPU_BUSY)),
                    "give the writer more cores or run more writer instances (partitions permitting)",
                    saturated(tCpuBusy, false, insSat, false, perSat, null),
                    ev);
        }
        if (insSat) { // the target's CPU is between low and busy: its inserts are full and it works hard
            return new Verdict(
                    Resource.TARGET_INSERT_CONCURRENCY,
                    String.format(
                            Locale.ROOT, "%s; its CPU %s is neither low nor busy", InsertLimit.reason(e), pct(tCpu)),
                    "raise -maxConcurrentInserts a little, watching the target's CPU, or add vminsert nodes",
                    saturated(false, false, false, false, perSat, null),
                    ev);
        }
        if (perSat) {
            if (Double.isNaN(ins)) {
                return new Verdict(
                        Resource.UNKNOWN,
                        String.format(
                                Locale.ROOT,
                                "every write permit is in use (%s of %s) but the target's inserts are unknown: the permits or the target",
                                num(e.permitsInUse()),
                                num(e.permitsCapacity())),
                        "give the target's /metrics (--target-metrics-url)",
                        List.of(),
                        ev);
            }
            if (Double.isNaN(e.insertWaitsPerSecond())) {
                return InsertLimit.waitsUnknown(e, ev);
            }
            return new Verdict(
                    Resource.WRITER_PERMITS,
                    String.format(
                            Locale.ROOT,
                            "write permits %s of %s in use (%s >= %s) while the target's inserts are %s of its capacity",
                            num(e.permitsInUse()),
                            num(e.permitsCapacity()),
                            pct(per),
                            pct(SATURATED),
                            pct(ins)),
                    "raise --max-concurrent-writes (0 = match vm_concurrent_insert_capacity) or look at the network between writer and target",
                    List.of(),
                    ev);
        }
        if (machineBusy) {
            return machine(e, wCpu, tCpu, List.of(), ev);
        }
        return null;
    }

    private static Verdict machine(Evidence e, double wCpu, double tCpu, List<Resource> also, String ev) {
        return new Verdict(
                Resource.MACHINE_CPU,
                String.format(
                        Locale.ROOT,
                        "this machine's CPU is %s busy (>= %s) with every process on it: the writer (%s of its cores) and a target on"
                                + " this machine (%s) get less CPU than they need",
                        pct(e.machineCpuShare()),
                        pct(MACHINE_BUSY),
                        pct(wCpu),
                        pct(tCpu)),
                "measure on an idle machine or give it more cores; the figures of this window say what the processes got, not what they need",
                also,
                ev);
    }

    private static List<Resource> saturated(
            boolean tCpu, boolean storage, boolean ins, boolean wCpu, boolean per, Resource except) {
        List<Resource> l = new ArrayList<>();
        add(l, tCpu, Resource.TARGET_CPU, except);
        add(l, storage, Resource.STORAGE, except);
        add(l, ins, Resource.TARGET_INSERT_CONCURRENCY, except);
        add(l, wCpu, Resource.WRITER_CPU, except);
        add(l, per, Resource.WRITER_PERMITS, except);
        return List.copyOf(l);
    }

    private static void add(List<Resource> l, boolean on, Resource r, Resource except) {
        if (on && r != except) {
            l.add(r);
        }
    }

    static String pct(double v) {
        return Double.isFinite(v) ? String.format(Locale.ROOT, "%.1f%%", v * 100) : "n/a";
    }

    static String num(double v) {
        if (!Double.isFinite(v)) {
            return "n/a";
        }
        return v == Math.rint(v) && Math.abs(v) < 1e9 ? Long.toString((long) v) : String.format(Locale.ROOT, "%.2f", v);
    }
}
