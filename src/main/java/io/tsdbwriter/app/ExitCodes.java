package io.tsdbwriter.app;

/**
 * The exit codes of every command (DESIGN §5; {@code run --help} and docs/delivery.md, "Exit codes" say each). Constants only.
 */
public final class ExitCodes {

    /** Done: with {@code --stop-at-end} the group committed every recorded end; no sample refused without a dead letter. */
    public static final int OK = 0;
    /** A fault: Kafka unreachable or refusing us, a configuration fault past its timeout, a thread died. */
    public static final int FAULT = 1;
    /** Bad flags. */
    public static final int USAGE = 2;
    /** Done, but with samples the receiver refused and that were not dead-lettered. */
    public static final int REFUSED = 3;
    /** A {@code --stop-at-end} job stopped by SIGTERM/SIGINT before the group committed every recorded end. */
    public static final int STOPPED = 4;
    /**
     * {@code verify}: VictoriaMetrics could not be read back (its {@code --vm-url} or a {@code --flush-url} unreachable or
     * answering an error), so nothing was compared; 1 is kept for "read back, and it differs". No other command uses it.
     */
    public static final int UNREACHABLE = 5;

    private ExitCodes() {}
}
