package io.tsdbwriter.lab;

import java.util.BitSet;

/**
 * A set of CPU numbers in the Linux cpulist format ({@code 0}, {@code 1}, {@code 0-3,6}: comma-separated numbers and
 * inclusive ranges), as {@code taskset -c}, {@code /sys/devices/system/cpu/online} and {@code Cpus_allowed_list} of
 * {@code /proc/PID/status} write it. Immutable; thread-safe.
 */
public final class CpuList {

    /** The highest CPU number accepted (Linux's own limit, {@code NR_CPUS}, is at most 8192). */
    public static final int MAX_CPU = 8191;

    private final BitSet cpus;

    private CpuList(BitSet cpus) {
        this.cpus = cpus;
    }

    /**
     * Parses a cpulist: {@code N} or {@code A-B} (A ≤ B) items separated by commas, blanks around items ignored.
     *
     * @throws IllegalArgumentException when the text is empty, an item is not a number or a range, a range runs
     *     backwards, or a CPU number exceeds {@value #MAX_CPU}; the message quotes the text
     */
    public static CpuList parse(String text) {
        BitSet set = new BitSet();
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("empty CPU list (expected e.g. 0, 1 or 0-3,6)");
        }
        for (String item : text.split(",", -1)) {
            String t = item.strip();
            int dash = t.indexOf('-');
            int from = number(dash < 0 ? t : t.substring(0, dash), text);
            int to = dash < 0 ? from : number(t.substring(dash + 1), text);
            if (to < from) {
                throw new IllegalArgumentException(
                        "'" + text + "' is not a CPU list: the range " + t + " runs backwards");
            }
            set.set(from, to + 1);
        }
        return new CpuList(set);
    }

    private static int number(String s, String text) {
        if (s.isEmpty() || s.length() > 4 || !s.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw new IllegalArgumentException("'" + text + "' is not a CPU list (expected e.g. 0, 1 or 0-3,6)");
        }
        int n = Integer.parseInt(s);
        if (n > MAX_CPU) {
            throw new IllegalArgumentException("'" + text + "': CPU " + n + " is above " + MAX_CPU);
        }
        return n;
    }

    /** The list of no CPU. */
    public static CpuList none() {
        return new CpuList(new BitSet());
    }

    /** The CPUs of either list. */
    public CpuList union(CpuList other) {
        BitSet b = (BitSet) cpus.clone();
        b.or(other.cpus);
        return new CpuList(b);
    }

    /** The CPUs of both lists. */
    public CpuList intersect(CpuList other) {
        BitSet b = (BitSet) cpus.clone();
        b.and(other.cpus);
        return new CpuList(b);
    }

    /** True when the lists share no CPU. */
    public boolean disjoint(CpuList other) {
        return !cpus.intersects(other.cpus);
    }

    /** The CPUs of this list that {@code other} lacks, or an empty list. */
    public CpuList minus(CpuList other) {
        BitSet b = (BitSet) cpus.clone();
        b.andNot(other.cpus);
        return new CpuList(b);
    }

    /** True when the list holds no CPU. */
    public boolean isEmpty() {
        return cpus.isEmpty();
    }

    /** How many CPUs the list holds. */
    public int size() {
        return cpus.cardinality();
    }

    /** The canonical cpulist: ascending, runs of two or more as ranges ({@code 0-3,6}); empty for an empty list. */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        for (int from = cpus.nextSetBit(0); from >= 0; ) {
            int to = cpus.nextClearBit(from) - 1;
            b.append(b.isEmpty() ? "" : ",").append(from);
            if (to > from) {
                b.append('-').append(to);
            }
            from = cpus.nextSetBit(to + 1);
        }
        return b.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CpuList c && c.cpus.equals(cpus);
    }

    @Override
    public int hashCode() {
        return cpus.hashCode();
    }
}
