package io.tsdbwriter.app;

import io.tsdbwriter.config.ConsumerMode;
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
 * How a run ended: its exit code ({@link ExitCodes}) and one line saying why (docs/delivery.md, "Exit codes"). Immutable.
 *
 * @param code   the process's exit code
 * @param reason one line for the log and the summary
 */
record RunExit(int code, String reason) {

    /**
     * The writes the stop held because the TSDB was failing ({@code BatchWriter.stopping}): not written, never
     * acknowledged, so never committed past.
     *
     * @param batches how many batches
     * @param samples their samples
     */
    record Held(int batches, long samples) {}

    /**
     * The exit code of a run that got past its start (DESIGN §5): 1 for a fault (a thread died, a record could not be
     * dead-lettered, a configuration fault outlasted {@code --write-fault-timeout}, writes unfinished at the stop —
     * {@code held} says when the TSDB failing at the stop was why); with {@code --stop-at-end} or a replay's end
     * {@link ExitCodes#STOPPED} when a signal stopped it before the end; {@link ExitCodes#REFUSED} when it is done but
     * samples were refused and not dead-lettered; else 0. A signal after the last pass was written and stored, or
     * whose drain committed every recorded end, is not a stop before the end: 0. Without an end the writer is a
     * service: a signal is its normal end.
     */
    static RunExit of(
            RunConfig cfg,
            ThreadDeaths deaths,
            boolean faultGaveUp,
            DeadLetterQueue deadLetters,
            Intake m,
            boolean signalled,
            WriterMeters meters,
            Held held) {
        if (deaths.anyDied()) {
            return new RunExit(
                    ExitCodes.FAULT, "a thread died (" + deaths.firstDeath() + "); committed only the watermark");
        }
        if (faultGaveUp) {
            return new RunExit(
                    ExitCodes.FAULT,
                    "a configuration fault of the write endpoint lasted --write-fault-timeout "
                            + cfg.writeFaultTimeout().toSeconds() + "s; nothing past unwritten data is committed");
        }
        if (deadLetters != null && deadLetters.stuckRecords() > 0) {
            return new RunExit(
                    ExitCodes.FAULT,
                    deadLetters.stuckRecords() + " record(s) could not be dead-lettered to " + deadLetters.topic()
                            + "; nothing past them is committed");
        }
        boolean signalAfterLastCommit =
                signalAfterLastCommit(m, signalled, cfg.replay().replay());
        String heldText = held.batches() == 0
                ? null
                : heldLine(held, cfg.replay().replay(), cfg.consumerMode() == ConsumerMode.SHARE);
        if (m.hasEnd() && !m.reachedEnd() && !signalAfterLastCommit) {
            if (signalled) {
                return new RunExit(
                        ExitCodes.STOPPED,
                        "stopped by a signal before the end" + whatIsShort(m)
                                + (heldText == null ? "" : "; " + heldText));
            }
            return new RunExit(ExitCodes.FAULT, "stopped before the end");
        }
        if (!m.cleanStop()) {
            return new RunExit(
                    ExitCodes.FAULT,
                    heldText != null
                            ? "stopped " + heldText
                            : "stopped with writes unfinished; committed only the watermark");
        }
        long refused = (long) meters.samplesRefused.count();
        if (refused > 0) {
            return new RunExit(
                    ExitCodes.REFUSED,
                    (m.hasEnd() ? "done, but " : "stopped; ") + refused
                            + " sample(s) were refused by the receiver and not dead-lettered (no --dead-letter-topic): "
                            + meters.samplesRefusedByReason());
        }
        if (cfg.replay().replay() && m.hasEnd()) {
            return new RunExit(
                    ExitCodes.OK,
                    "done: every pass of the window written"
                            + (cfg.replay().duration() == null ? "" : " (or --replay-duration over)")
                            + (signalled
                                    ? " (the signal came after the last pass was read: the stop drained its writes and waited out the "
                                            + "durability window within --drain-timeout)"
                                    : ""));
        }
        return new RunExit(
                ExitCodes.OK,
                m.hasEnd()
                        ? "done: the group committed every recorded end"
                                + (signalAfterLastCommit ? " (the signal came while the last writes drained)" : "")
                        : "stopped");
    }

    /** What a stop before the end left short, for the reason: the partitions, and what the intake says in words. */
    static String whatIsShort(Intake m) {
        Map<TopicPartition, Shortfall> s = m.shortfall();
        String words = m.stoppedShort();
        if (s == null || s.isEmpty() && words != null) {
            return words != null
                    ? ": " + words
                    : " (before Kafka answered, or the group's offsets could not be read back)";
        }
        return ": " + s.size() + " partition(s) short of their recorded end, "
                + s.values().stream().mapToLong(Shortfall::records).sum() + " record(s) in all"
                + (words == null ? "" : "; " + words);
    }

    /**
     * The one line saying the writes the stop held are safe: where they are and what writes them again.
     *
     * @param replay a replay (no commits); else {@code share} says whether the records go back to a share group
     */
    static String heldLine(Held held, boolean replay, boolean share) {
        return "while writes to the TSDB were failing: " + held.batches() + " batch(es), " + held.samples()
                + " sample(s) held, not "
                + "written"
                + (replay
                        ? "; a replay commits nothing: run it again (repeats collapse under -dedup.minScrapeInterval)"
                        : share
                                ? " nor acknowledged: their records are released to the share group and delivered again"
                                : " and not committed past (the group's offsets stay at the last commit); the next start writes them again from there");
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
        s.values().stream()
                .sorted(Comparator.comparing((Shortfall f) -> f.partition().topic())
                        .thenComparingInt(f -> f.partition().partition()))
                .forEach(f -> {
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
