package io.tsdbwriter.write;

import io.tsdbwriter.wire.Output;
import java.util.Locale;

/**
 * Whether each series reaches the receiver in timestamp order ({@code --ordering}; DESIGN §6, "Per-series order").
 * The remote write specification: a sender MUST send each series' samples in timestamp order and MAY send different
 * series in parallel. Prometheus, Mimir and Thanos receive refuse an older sample of a series by default (no
 * out-of-order window); VictoriaMetrics takes any order.
 */
public enum Ordering {
    /**
     * Per-series order: every series is written through one lane (a hash of its source labels), each lane sends one
     * request at a time in offset order, and a partition's segment k reaches the lanes before segment k + 1. The default
     * of {@code --output remote-write} with segment consumption.
     */
    SERIES("series"),
    /** No order kept: requests in parallel as they are ready. The default of {@code --output import} and of share mode. */
    NONE("none");

    private final String flag;

    Ordering(String flag) {
        this.flag = flag;
    }

    /** The name used on the command line. */
    public String flag() {
        return flag;
    }

    /**
     * The default when {@code --ordering} is not given: {@link #SERIES} for remote write read in segments (a receiver
     * may lack an out-of-order window), {@link #NONE} for the import API (VictoriaMetrics takes any order) and for
     * share mode (which cannot order: any member reads any record).
     *
     * @param share {@code --consumer-mode share}
     */
    public static Ordering defaultFor(Output output, boolean share) {
        return output == Output.REMOTE_WRITE && !share ? SERIES : NONE;
    }

    /**
     * Parses {@code series} or {@code none} (case-insensitive).
     *
     * @throws IllegalArgumentException for anything else
     */
    public static Ordering parse(String s) {
        String v = s == null ? "" : s.trim().toLowerCase(Locale.ROOT);
        for (Ordering o : values()) {
            if (o.flag.equals(v)) {
                return o;
            }
        }
        throw new IllegalArgumentException("--ordering must be series or none, got '" + s + "'");
    }

    @Override
    public String toString() {
        return flag;
    }
}
