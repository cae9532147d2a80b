package io.tsdbwriter.app;

import java.util.List;

/**
 * One check of {@code tsdb-writer check}: whether it passed, what it looked at ({@code kafka}, {@code topic metrics},
 * {@code target http://vm:8428}) and what it found, in one line without any secret. The list of a whole check gives
 * the summary line and the exit code. Immutable and thread-safe.
 *
 * @param status  passed, passed with something to know, or failed
 * @param subject what was checked, no colon
 * @param text    what was found, one line
 */
public record CheckResult(Status status, String subject, String text) {

    /** How a check ended. */
    public enum Status {
        /** It is as {@code run} needs it. */
        OK("ok"),
        /** {@code run} would work, with something the operator should know (a fallback, a window chosen blind). */
        WARN("warn"),
        /** {@code run} would not work as configured: a configuration fault. */
        FAIL("FAIL");

        private final String label;

        Status(String label) {
            this.label = label;
        }

        /** {@code ok}, {@code warn} or {@code FAIL}: the first word of the line. */
        public String label() {
            return label;
        }
    }

    public static CheckResult ok(String subject, String text) {
        return new CheckResult(Status.OK, subject, text);
    }

    public static CheckResult warn(String subject, String text) {
        return new CheckResult(Status.WARN, subject, text);
    }

    public static CheckResult fail(String subject, String text) {
        return new CheckResult(Status.FAIL, subject, text);
    }

    /** The line printed: the status left-aligned in 4 columns, a space, {@code subject: text}. */
    public String line() {
        return String.format("%-4s %s: %s", status.label(), subject, text);
    }

    /**
     * The last line of a check: how many checks passed, warned and failed, and what that means for {@code run}, e.g.
     * {@code check: 6 ok, 1 failed: run would not work with this configuration}.
     */
    public static String summary(List<CheckResult> results) {
        long ok = count(results, Status.OK);
        long warn = count(results, Status.WARN);
        long fail = count(results, Status.FAIL);
        StringBuilder s = new StringBuilder("check: ").append(ok).append(" ok");
        if (warn > 0) {
            s.append(", ").append(warn).append(warn == 1 ? " warning" : " warnings");
        }
        if (fail > 0) {
            s.append(", ").append(fail).append(" failed: run would not work with this configuration");
        } else {
            s.append(": run can start with this configuration (nothing was written nor committed)");
        }
        return s.toString();
    }

    /** {@link ExitCodes#OK} when no check failed (warnings pass), else {@link ExitCodes#USAGE}: a configuration fault. */
    public static int exitCode(List<CheckResult> results) {
        return count(results, Status.FAIL) == 0 ? ExitCodes.OK : ExitCodes.USAGE;
    }

    private static long count(List<CheckResult> results, Status status) {
        return results.stream().filter(r -> r.status() == status).count();
    }
}
