package io.tsdbwriter.app;

import io.tsdbwriter.config.RunConfig;
import io.tsdbwriter.deadletter.DeadLetterQueue;
import io.tsdbwriter.kafka.Intake;
import io.tsdbwriter.kafka.Shortfall;
import io.tsdbwriter.metrics.WriterMeters;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * How a run ended: its exit code ({@link ExitCodes}) and one line saying why (README "Exit codes"). Immutable.
 *
 * @param code   the process's exit code
 * @param reason one line for the log and the summary
 */
record RunExit(int code, String reason) {

    /**
     * The exit code of a run that got past its start (DESIGN §5): 1 for a fault (a thread died, a record could not be
     * dead-lettered, a configuration fault outlasted {@code --write-fault-timeout}, writes unfinished at the stop);
     * with {@code --stop-at-end} {@link ExitCodes#STOPPED} when a signal stopped it before the group committed every
     * recorded end; {@link ExitCodes#REFUSED} when it is done but samples were refused and not dead-lettered; else 0.
     * Without {@code --stop-at-end} the writer is a service: a signal is its normal end.
     */
    static RunExit of(RunConfig cfg, ThreadDeaths deaths, boolean faultGaveUp, DeadLetterQueue deadLetters, Intake m,
                      boolean signalled, WriterMeters meters) {
        if (deaths.anyDied()) {
            return new RunExit(ExitCodes.FAULT, "a thread died (" + deaths.firstDeath() + "); committed only the watermark");
        }
        if (faultGaveUp) {
            return new RunExit(ExitCodes.FAULT, "a configuration fault of the write endpoint lasted --write-fault-timeout "
                    + cfg.writeFaultTimeout().toSeconds() + "s; nothing past unwritten data is committed");
        }
        if (deadLetters != null && deadLetters.stuckRecords() > 0) {
            return new RunExit(ExitCodes.FAULT, deadLetters.stuckRecords() + " record(s) could not be dead-lettered to "
                    + deadLetters.topic() + "; nothing past them is committed");
        }
        boolean signalAfterLastCommit = signalAfterLastCommit(m, signalled, cfg.replay().replay());
        if (m.hasEnd() && !m.reachedEnd() && !signalAfterLastCommit) {
            if (signalled) {
                Map<TopicPartition, Shortfall> s = m.shortfall();
                return new RunExit(ExitCodes.STOPPED, "stopped by a signal before the end"
                        + (s == null ? " (before Kafka answered, or the group's offsets could not be read back)"
                                : ": " + s.size() + " partition(s) short of their recorded end, "
                                        + s.values().stream().mapToLong(Shortfall::records).sum() + " record(s) in all"));
            }
            return new RunExit(ExitCodes.FAULT, "stopped before the end");
        }
        if (!m.cleanStop()) {
            return new RunExit(ExitCodes.FAULT, "stopped with writes unfinished; committed only the watermark");
        }
        long refused = (long) meters.samplesFailed.count();
        if (refused > 0) {
            return new RunExit(ExitCodes.REFUSED, (m.hasEnd() ? "done, but " : "stopped; ") + refused
                    + " sample(s) were refused by the receiver and not dead-lettered (no --dead-letter-topic): "
                    + meters.samplesFailedByReason());
        }
        if (cfg.replay().replay() && m.hasEnd()) {
            return new RunExit(ExitCodes.OK, "done: every pass of the window written" + (cfg.replay().duration() == null ? "" : " (or --duration over)"));
        }
        return new RunExit(ExitCodes.OK, m.hasEnd() ? "done: the group committed every recorded end"
                + (signalAfterLastCommit ? " (the signal came while the last writes drained)" : "") : "stopped");
    }

    /**
     * A {@code --stop-at-end} job signalled while its last writes drained, whose drain then committed every recorded end:
     * the group's offsets, read back from Kafka at exit, leave no partition short. That is a finished job, not a stopped
     * one (it exited 4 with "0 partition(s) short" before). Not for a replay: its shortfall covers the pass being
     * written only, and later passes may remain.
     */
    static boolean signalAfterLastCommit(Intake m, boolean signalled, boolean replay) {
        if (!signalled || replay || !m.hasEnd() || m.reachedEnd()) {
            return false;
        }
        Map<TopicPartition, Shortfall> s = m.shortfall();
        return s != null && s.isEmpty();
    }

    /** With {@code --stop-at-end} stopped early: the partitions left short, for the summary; null when not known. */
    static List<Map<String, Object>> shortfall(Intake m) {
        Map<TopicPartition, Shortfall> s = m.shortfall();
        if (s == null) {
            return null;
        }
        List<Map<String, Object>> out = new ArrayList<>();
        s.values().stream().sorted(Comparator.comparing((Shortfall f) -> f.partition().topic())
                .thenComparingInt(f -> f.partition().partition())).forEach(f -> {
                    Map<String, Object> e = new LinkedHashMap<>();
                    e.put("topic", f.partition().topic());
                    e.put("partition", f.partition().partition());
                    e.put("committed", f.committed());
                    e.put("end", f.end());
                    e.put("records_short", f.records());
                    out.add(e);
                });
        return out;
    }
}
