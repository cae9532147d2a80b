import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordingFile;

/**
 * The execution samples of a JFR recording ({@code jdk.ExecutionSample}) as (1) stacks in {@code perf script}'s text
 * format, which the npm {@code flamegraph} package (`flamegraph -t perf`) renders as an SVG flame graph, and (2) the
 * top frames by share of samples, self and inclusive, as a Markdown table. Run by scripts/profile.sh as a single-file
 * program: {@code java scripts/JfrStacks.java REC.jfr STACKS.perf TOP.md [TOP_N] [THREAD_PREFIX]}.
 */
public final class JfrStacks {

    public static void main(String[] args) throws IOException {
        Path jfr = Path.of(args[0]);
        int topN = args.length > 3 ? Integer.parseInt(args[3]) : 25;
        String threadPrefix = args.length > 4 ? args[4] : "";
        Map<String, Integer> self = new HashMap<>();
        Map<String, Integer> inclusive = new HashMap<>();
        Map<String, Integer> byThread = new HashMap<>();
        int samples = 0;
        try (PrintStream perf = new PrintStream(Files.newOutputStream(Path.of(args[1])), false, "UTF-8")) {
            for (RecordedEvent e : RecordingFile.readAllEvents(jfr)) {
                if (!e.getEventType().getName().equals("jdk.ExecutionSample")) {
                    continue;
                }
                RecordedStackTrace st = e.getStackTrace();
                if (st == null || st.getFrames().isEmpty()) {
                    continue;
                }
                String thread = e.getThread("sampledThread") == null ? "?" : e.getThread("sampledThread").getJavaName();
                if (thread == null) {
                    thread = "?";
                }
                if (!thread.startsWith(threadPrefix)) {
                    continue;
                }
                samples++;
                byThread.merge(threadGroup(thread), 1, Integer::sum);
                List<RecordedFrame> frames = st.getFrames();
                perf.println("java 1 [000] " + samples + ".0: cpu-clock:");
                Set<String> seen = new HashSet<>();
                for (int i = 0; i < frames.size(); i++) {
                    String m = name(frames.get(i));
                    if (i == 0) {
                        self.merge(m, 1, Integer::sum);
                    }
                    if (seen.add(m)) {
                        inclusive.merge(m, 1, Integer::sum);
                    }
                    perf.println("\t0 " + m.replace(' ', '_') + " (java)");
                }
                perf.println("\t0 " + threadGroup(thread).replace(' ', '_') + " (thread)");
                perf.println();
            }
        }
        try (PrintStream md = new PrintStream(Files.newOutputStream(Path.of(args[2])), false, "UTF-8")) {
            md.printf(Locale.ROOT, "%d execution samples%s%n%n", samples, threadPrefix.isEmpty() ? "" : " of threads " + threadPrefix + "*");
            md.println("| thread | share |");
            md.println("|:--|--:|");
            top(byThread, 10).forEach(t -> md.printf(Locale.ROOT, "| %s | %.1f %% |%n", t.getKey().replace("|", "\\|"), 100.0 * t.getValue() / Math.max(1, total(byThread))));
            md.println();
            md.println("| frame (self) | share |");
            md.println("|:--|--:|");
            for (var t : top(self, topN)) {
                md.printf(Locale.ROOT, "| `%s` | %.1f %% |%n", t.getKey(), 100.0 * t.getValue() / Math.max(1, samples));
            }
            md.println();
            md.println("| frame (inclusive) | share |");
            md.println("|:--|--:|");
            for (var t : top(inclusive, topN)) {
                md.printf(Locale.ROOT, "| `%s` | %.1f %% |%n", t.getKey(), 100.0 * t.getValue() / Math.max(1, samples));
            }
        }
    }

    private static int total(Map<String, Integer> m) {
        return m.values().stream().mapToInt(Integer::intValue).sum();
    }

    private static List<Map.Entry<String, Integer>> top(Map<String, Integer> m, int n) {
        List<Map.Entry<String, Integer>> l = new ArrayList<>(m.entrySet());
        l.sort((a, b) -> Integer.compare(b.getValue(), a.getValue()));
        return l.subList(0, Math.min(n, l.size()));
    }

    /** {@code segment-<topic>-0-1} → {@code segment-*}, {@code vm-write-3} → {@code vm-write*}: threads of one kind together. */
    private static String threadGroup(String thread) {
        return thread.startsWith("segment-") ? "segment-*" : thread.isEmpty() ? "(virtual)*" : thread.replaceAll("[-#]?\\d+$", "") + "*";
    }

    private static String name(RecordedFrame f) {
        var m = f.getMethod();
        if (m == null) {
            return "?";
        }
        String type = m.getType() == null ? "?" : m.getType().getName();
        int dot = type.lastIndexOf('.');
        String pkg = dot < 0 ? "" : type.substring(0, dot);
        // shorten our package, keep the others' (where the time goes outside the project matters)
        String shortType = pkg.startsWith("io.tsdbwriter") ? type.substring("io.tsdbwriter.".length()) : type;
        return shortType + "." + m.getName();
    }
}
