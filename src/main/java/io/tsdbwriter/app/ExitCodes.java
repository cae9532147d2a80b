package io.tsdbwriter.app;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The exit codes of every command, and the one catalogue of what each means ({@link #CATALOGUE}): every command's
 * {@code --help} lists its codes from it, and a test holds README.md, docs/delivery.md, docs/troubleshooting.md and
 * docs/verify.md to it. Immutable and thread-safe.
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
     * {@code verify}: the TSDB could not be read back (its {@code --vm-url} or a {@code --flush-url} unreachable or
     * answering an error), so nothing was compared; 1 is kept for "read back, and it differs". No other command uses it.
     */
    public static final int UNREACHABLE = 5;

    /** The commands, in the order the catalogue lists them. */
    public static final List<String> COMMANDS = List.of("run", "check", "produce", "verify", "bench", "capacity");

    /**
     * One exit code: {@code meaning} is its one line in every list that is not one command's; {@code byCommand} maps each
     * command that exits with it to what it means there (one line, the {@code --help} text), in {@link #COMMANDS} order.
     */
    public record Code(int code, String meaning, Map<String, String> byCommand) {
        public Code {
            byCommand = Collections.unmodifiableMap(new LinkedHashMap<>(byCommand));
        }
    }

    /** Every exit code, in ascending order. */
    public static final List<Code> CATALOGUE = List.of(
            code(
                    OK,
                    "done",
                    "run",
                    "done: the recorded ends committed (--stop-at-end), a replay's passes stored, or stopped with nothing unwritten",
                    "check",
                    "every check passed: the flags, Kafka and the write targets are as run needs them",
                    "produce",
                    "every record acknowledged by Kafka",
                    "verify",
                    "the TSDB holds exactly the expected samples",
                    "bench",
                    "every cell ran and wrote every expected sample (live: the writer exited cleanly)",
                    "capacity",
                    "a capacity was found and every produced sample was written"),
            code(
                    FAULT,
                    "a fault",
                    "run",
                    "a fault: a missing topic, Kafka or the endpoint failing past its timeout, a dead thread, writes held at the stop",
                    "check",
                    "the checks could not be carried out (an unexpected error, logged)",
                    "produce",
                    "a send failed or the input could not be read",
                    "verify",
                    "it does not: samples missing, unexpected or with other values (the summary says which)",
                    "bench",
                    "a cell failed or a step could not run",
                    "capacity",
                    "no step passed, a step failed to run, or samples were not written (with --target: for one target or more)"),
            code(
                    USAGE,
                    "invalid flags",
                    "run",
                    "invalid flags",
                    "check",
                    "invalid flags, or a check failed: its FAIL line says what run would stumble on",
                    "produce",
                    "invalid flags",
                    "verify",
                    "invalid flags, or an input file that cannot be read",
                    "bench",
                    "invalid flags",
                    "capacity",
                    "invalid flags"),
            code(
                    REFUSED,
                    "done, but samples refused",
                    "run",
                    "done, but samples were refused by the receiver and not dead-lettered: the summary lists them by reason"),
            code(
                    STOPPED,
                    "stopped before the end",
                    "run",
                    "a --stop-at-end job or a replay stopped by SIGTERM/SIGINT before its end: the summary lists the partitions short"),
            code(
                    UNREACHABLE,
                    "could not read back",
                    "verify",
                    "the TSDB could not be read back: --vm-url or a --flush-url unreachable or answering an error; "
                            + "nothing was compared"));

    private ExitCodes() {}

    /** The codes {@code command} exits with, each with its meaning there, ascending; empty for an unknown command. */
    public static Map<Integer, String> of(String command) {
        Map<Integer, String> codes = new LinkedHashMap<>();
        for (Code c : CATALOGUE) {
            String meaning = c.byCommand().get(command);
            if (meaning != null) {
                codes.put(c.code(), meaning);
            }
        }
        return codes;
    }

    private static Code code(int code, String meaning, String... commandAndMeaning) {
        Map<String, String> byCommand = new LinkedHashMap<>();
        for (int i = 0; i < commandAndMeaning.length; i += 2) {
            if (!COMMANDS.contains(commandAndMeaning[i])) {
                throw new IllegalArgumentException("no command " + commandAndMeaning[i]);
            }
            byCommand.put(commandAndMeaning[i], commandAndMeaning[i + 1]);
        }
        return new Code(code, meaning, byCommand);
    }
}
