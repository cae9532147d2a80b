package io.tsdbwriter.kafka;

/**
 * This process's part of its group's work, which sizes its part of a shared target's insert capacity (write permits,
 * DESIGN §6): {@code mine} of {@code total} units — the partitions it holds of the subscribed topics' partitions (a
 * consumer group), its share consumers of the share group's members (a share group), or 1 of 1 (a replay: no group).
 * {@code mine} 0 (nothing assigned yet, or the group not described yet) gets the least share. Immutable.
 *
 * @param mine  units this process has now, ≥ 0
 * @param total units of the whole group, ≥ {@code mine} (0 only with {@code mine} 0: not known yet)
 * @param unit  what is counted, for the log line ("partitions", "share consumers", "process")
 */
public record WorkShare(int mine, int total, String unit) {

    /** A process alone with its work: a replay, which joins no group. */
    public static final WorkShare WHOLE = new WorkShare(1, 1, "process");

    /** @throws IllegalArgumentException when {@code mine} is negative or above {@code total} */
    public WorkShare {
        if (mine < 0 || total < mine) {
            throw new IllegalArgumentException("work share " + mine + " of " + total + " " + unit);
        }
    }

    /**
     * This share of {@code capacity} slots: {@code floor(capacity × mine ÷ total)}, at least 1 — so the parts of the
     * group's members add up to at most {@code capacity} while every member holding work has at least one slot. Only the
     * rounding up to 1 can make the sum exceed it: more members holding work than slots, or a member whose share is
     * below one slot beside others holding much more.
     *
     * @param capacity the whole target's slots, ≥ 1
     */
    public int of(int capacity) {
        if (mine == 0 || total == 0) {
            return 1;
        }
        return (int) Math.max(1, (long) capacity * mine / total);
    }

    @Override
    public String toString() {
        return total == 0 ? "no " + unit + " yet" : mine + " of " + total + " " + unit;
    }
}
