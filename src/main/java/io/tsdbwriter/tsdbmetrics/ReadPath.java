package io.tsdbwriter.tsdbmetrics;

import java.util.List;
import java.util.Locale;

/**
 * The read-path rule of the verdict ({@link Bottleneck.Resource#READ_PATH}), for steps that ran a read load
 * ({@code capacity --query-rate}). It decides before {@link Bottleneck#attribute} (once efficiency is known): the read
 * path limits when
 * <ul>
 *   <li>the reads fail: errors and timeouts above {@link #MAX_FAILURES} of the queries started, or the answered
 *       queries' p99 latency above the limit ({@code --max-query-p99-latency}); or</li>
 *   <li>the target's selects are saturated (its {@code vm_concurrent_select_current} averaged over the window ≥
 *       {@link Bottleneck#SATURATED} of {@code vm_concurrent_select_capacity}) while its CPU is busy (≥
 *       {@link Bottleneck#CPU_BUSY} of its cores): the queries take the CPU the inserts need.</li>
 * </ul>
 * The reason names the cause the figures show: the target's (vmselect or single-node) CPU when it is busy, the select
 * concurrency ({@code -search.maxConcurrentRequests}) when the selects are full and the CPU is not, else the failing
 * queries alone. Otherwise {@link Bottleneck#attribute} decides. Pure logic; stateless; thread-safe.
 */
public final class ReadPath {

    /** Failed queries (errors + timeouts) above this share of the queries started: the reads fail. */
    public static final double MAX_FAILURES = 0.01;

    /**
     * The read load's figures of one window. NaN = not known.
     *
     * @param started         queries started in the window
     * @param errors          queries answered with an error
     * @param timeouts        queries past the query timeout
     * @param p99Seconds      the answered queries' p99 latency, seconds
     * @param maxP99Seconds   the p99 a step may have, seconds
     * @param selectsCurrent  the target's {@code vm_concurrent_select_current}, averaged over the window
     * @param selectsCapacity the target's {@code vm_concurrent_select_capacity}
     */
    public record ReadEvidence(
            long started,
            long errors,
            long timeouts,
            double p99Seconds,
            double maxP99Seconds,
            double selectsCurrent,
            double selectsCapacity) {

        /** (errors + timeouts) ÷ started; 0 when none started. */
        public double failureRatio() {
            return started == 0 ? 0 : (double) (errors + timeouts) / started;
        }

        /** Whether the reads fail: failures above {@link #MAX_FAILURES} or the p99 above its limit. */
        public boolean failing() {
            return failureRatio() > MAX_FAILURES || p99Seconds > maxP99Seconds;
        }

        /** Selects in use as a share of the select capacity, or NaN. */
        public double selectShare() {
            return Double.isFinite(selectsCurrent) && selectsCapacity > 0
                    ? selectsCurrent / selectsCapacity
                    : Double.NaN;
        }

        /** The figures, printed. */
        public String describe() {
            return String.format(
                    Locale.ROOT,
                    "queries %d started, %d errors, %d timeouts (%s failed, max %s), p99 %s s (max %s s),"
                            + " target selects %s of %s (%s)",
                    started,
                    errors,
                    timeouts,
                    Bottleneck.pct(failureRatio()),
                    Bottleneck.pct(MAX_FAILURES),
                    Bottleneck.num(p99Seconds),
                    Bottleneck.num(maxP99Seconds),
                    Bottleneck.num(selectsCurrent),
                    Bottleneck.num(selectsCapacity),
                    Bottleneck.pct(selectShare()));
        }
    }

    private ReadPath() {}

    /**
     * The verdict of a window with a read load: {@link Bottleneck.Resource#READ_PATH} when the class comment's rule
     * holds, else {@link Bottleneck#attribute}'s. With {@code reads} null (no read load) it is {@link Bottleneck#attribute}'s.
     */
    public static Bottleneck.Verdict attribute(Bottleneck.Evidence e, ReadEvidence reads) {
        Bottleneck.Verdict write = Bottleneck.attribute(e);
        if (reads == null || Double.isNaN(e.efficiency())) {
            return write;
        }
        double tCpu = e.targetCpuShare();
        boolean cpuBusy = tCpu >= Bottleneck.CPU_BUSY;
        boolean selectsFull = reads.selectShare() >= Bottleneck.SATURATED;
        if (!reads.failing() && !(selectsFull && cpuBusy)) {
            return write;
        }
        String ev = e.describe() + "; " + reads.describe();
        String failed = String.format(
                Locale.ROOT,
                "%d of %d queries failed (%d errors, %d timeouts: %s), p99 %s s",
                reads.errors() + reads.timeouts(),
                reads.started(),
                reads.errors(),
                reads.timeouts(),
                Bottleneck.pct(reads.failureRatio()),
                Bottleneck.num(reads.p99Seconds()));
        List<Bottleneck.Resource> also =
                write.resource() == Bottleneck.Resource.INPUT || write.resource() == Bottleneck.Resource.UNKNOWN
                        ? write.also()
                        : List.of(write.resource());
        if (cpuBusy) {
            return new Bottleneck.Verdict(
                    Bottleneck.Resource.READ_PATH,
                    String.format(
                            Locale.ROOT,
                            "the queries take the target's CPU (vmselect or single-node: %s of %s cores, %s >= %s) with its selects %s of %s; %s",
                            Bottleneck.num(e.targetCpuCores()),
                            Bottleneck.num(e.targetCores()),
                            Bottleneck.pct(tCpu),
                            Bottleneck.pct(Bottleneck.CPU_BUSY),
                            Bottleneck.num(reads.selectsCurrent()),
                            Bottleneck.num(reads.selectsCapacity()),
                            failed),
                    "give vmselect (or the single node) more cores, add vmselect nodes, or lighten the queries",
                    also,
                    ev);
        }
        if (selectsFull) {
            return new Bottleneck.Verdict(
                    Bottleneck.Resource.READ_PATH,
                    String.format(
                            Locale.ROOT,
                            "the target's select concurrency: selects %s of %s (%s >= %s) while its CPU is %s; %s",
                            Bottleneck.num(reads.selectsCurrent()),
                            Bottleneck.num(reads.selectsCapacity()),
                            Bottleneck.pct(reads.selectShare()),
                            Bottleneck.pct(Bottleneck.SATURATED),
                            Bottleneck.pct(tCpu),
                            failed),
                    "raise -search.maxConcurrentRequests (and -search.maxQueueDuration) or add vmselect nodes",
                    also,
                    ev);
        }
        return new Bottleneck.Verdict(
                Bottleneck.Resource.READ_PATH,
                String.format(
                        Locale.ROOT,
                        "the read load fails: %s (max %s failed, p99 max %s s) with the target's CPU %s and selects %s of %s",
                        failed,
                        Bottleneck.pct(MAX_FAILURES),
                        Bottleneck.num(reads.maxP99Seconds()),
                        Bottleneck.pct(tCpu),
                        Bottleneck.num(reads.selectsCurrent()),
                        Bottleneck.num(reads.selectsCapacity())),
                "see the target's log and vm_concurrent_select_*; raise -search.maxConcurrentRequests, -search.maxQueueDuration or "
                        + "--query-timeout, or lighten the queries",
                also,
                ev);
    }
}
