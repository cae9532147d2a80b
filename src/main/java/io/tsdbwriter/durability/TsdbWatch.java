package io.tsdbwriter.durability;

import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.tsdbmetrics.PromSnapshot;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches every TSDB process that can hold acknowledged samples in memory only (the write targets' {@code /metrics},
 * and each {@code --tsdb-metrics-url}: a cluster's vmstorage nodes) and tells when an acknowledgement counts as stored
 * (DESIGN §4 and §6, "Acknowledged is not stored"). Every {@link #PROBE_EVERY} it reads each page:
 * <ul>
 *   <li>a process whose start time it can read ({@code vm_app_start_timestamp}, else {@code process_start_time_seconds})
 *       has <em>restarted</em> when that time changes;</li>
 *   <li>a process whose page answers without a start time (a proxy, a page behind other credentials) is watched for
 *       reachability only: a failed probe followed by an answer counts as a restart, since nothing tells it apart;</li>
 *   <li>a round in which every process answered (with its old start time) moves the bound: acknowledgements made a
 *       window W before the round began are stored. A round with a silent process moves nothing.</li>
 * </ul>
 * A restart raises {@link DurabilityClock.State#restarts()} and counts {@code tsdbwriter_tsdb_restarts_total}; the
 * members then rewind to their last commit and log one WARN line naming the process, both start times
 * ({@link #lastRestart()}) and the offset ranges they read again.
 *
 * <p>W is {@code --durability-window} when given, else the largest {@link DurabilityNeed} of the processes watched
 * (read once at start; a page unreadable then counts as {@link DurabilityNeed#UNKNOWN}).
 *
 * <p>Thread-safety: {@link #start()} once; the probe runs on its own daemon thread; {@link #state()} from any thread.
 * A restart of a reachability-only process that happens entirely between two probes is not seen (the README says so).
 */
public final class TsdbWatch implements DurabilityClock, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(TsdbWatch.class);
    /**
     * How often every process is probed: the bound moves in these steps, so a write counts as stored between W and W +
     * this (plus the round's own time) after its acknowledgement.
     */
    public static final Duration PROBE_EVERY = Duration.ofMillis(500);
    /** What a page that gave no answer at start needs, in the start line. */
    private static final String NO_ANSWER = "its /metrics did not answer";
    /** One probe's bound. */
    static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);

    /** One process watched: its page, what it needs, the start time last seen (NaN: reachability only). */
    private static final class Process {
        final String metricsUrl;
        final String shown;
        DurabilityNeed.Need need;
        double startTime = Double.NaN;
        /** {@code vm_app_uptime_seconds} last seen (NaN: none): it falls on a restart within the start time's second. */
        double uptime = Double.NaN;

        boolean suspect;
        /** The page answered 404: there is none to watch, and it is not asked again. */
        boolean absent;

        Process(String metricsUrl, String shown) {
            this.metricsUrl = metricsUrl;
            this.shown = shown;
        }
    }

    /** What one probe saw: whether the page answered at all, its status (0 without an answer), its parsed page when 2xx. */
    private record Probe(boolean answered, int status, PromSnapshot page) {
        double startTime() {
            return page == null ? Double.NaN : page.first("vm_app_start_timestamp", "process_start_time_seconds");
        }

        double uptime() {
            return page == null ? Double.NaN : page.sum("vm_app_uptime_seconds");
        }
    }

    private final OkHttpClient http;
    private final List<Process> processes = new ArrayList<>();
    private final WriterMeters meters;
    private final Duration window;
    private final String description;
    private final List<String> unanswered;
    private final AtomicReference<State> state;
    private volatile boolean closed;
    private volatile String lastRestart = "";
    private Thread thread;

    /**
     * Reads every page once (start times, needs) and fixes the window.
     *
     * @param http        the write client's HTTP client (its auth and TLS apply)
     * @param metricsUrls the processes' {@code /metrics} pages, de-duplicated, none empty
     * @param shownUrls   the same URLs with any secret removed, for logs and meter tags
     * @param override    {@code --durability-window}, or null for the largest need of the processes
     */
    public TsdbWatch(
            OkHttpClient http,
            List<String> metricsUrls,
            List<String> shownUrls,
            Duration override,
            WriterMeters meters) {
        if (metricsUrls.isEmpty() || metricsUrls.size() != shownUrls.size()) {
            throw new IllegalArgumentException("one shown URL per metrics URL, at least one");
        }
        this.http = http.newBuilder()
                .callTimeout(PROBE_TIMEOUT)
                .followRedirects(false)
                .build();
        this.meters = meters;
        for (int i = 0; i < metricsUrls.size(); i++) {
            processes.add(new Process(metricsUrls.get(i), shownUrls.get(i)));
        }
        long t0 = System.nanoTime();
        boolean anyStorage = false;
        for (Process p : processes) {
            Probe probe = probe(p);
            p.absent = probe.status() == 404;
            p.need = probe.page() == null
                    ? new DurabilityNeed.Need(
                            DurabilityNeed.UNKNOWN,
                            "unknown",
                            probe.answered() ? "its /metrics did not answer 2xx" : NO_ANSWER)
                    : DurabilityNeed.of(probe.page());
            p.startTime = probe.startTime();
            p.uptime = probe.uptime();
            anyStorage |= p.need.stores();
        }
        Duration largest = Duration.ZERO;
        for (Process p : processes) {
            if (anyStorage
                    && p.need.kind()
                            .equals("victoriametrics-insert")) { // its storage nodes are watched: only its own buffers
                // count
                p.need = new DurabilityNeed.Need(
                        DurabilityNeed.VM_NO_STORAGE, p.need.kind(), "vminsert, its storage nodes watched");
            }
            largest = largest.compareTo(p.need.window()) >= 0 ? largest : p.need.window();
        }
        this.window = override != null ? override : largest;
        this.unanswered = processes.stream()
                .filter(p -> p.need.why().equals(NO_ANSWER))
                .map(p -> p.shown)
                .toList();
        this.description = processes.stream()
                .map(p -> p.shown + " (" + p.need.why()
                        + (p.absent
                                ? "; it answers 404: not asked again, its restarts are not watched (--tsdb-metrics-url none says so without asking)"
                                : Double.isNaN(p.startTime)
                                        ? "; no start time on its page: watched for reachability only"
                                        : "")
                        + ")")
                .collect(Collectors.joining(", "));
        this.state = new AtomicReference<>(new State(0, t0 - window.toNanos()));
        meters.durabilityWindowSeconds.set(window.toSeconds());
    }

    /**
     * The pages (as shown) that gave no answer at all when read at start (no connection, a timeout): until each answers,
     * no round moves the bound, so nothing counts as stored.
     */
    public List<String> unanswered() {
        return unanswered;
    }

    /** The window and what it was read from, for the start line. */
    public String describe() {
        return description;
    }

    @Override
    public Duration window() {
        return window;
    }

    @Override
    public State state() {
        return state.get();
    }

    /** Starts probing every {@link #PROBE_EVERY} on a daemon thread. */
    public synchronized void start() {
        if (thread == null) {
            thread = Thread.ofPlatform().daemon().name("tsdb-watch").start(this::loop);
        }
    }

    /**
     * Rounds start every {@link #PROBE_EVERY} (at a fixed rate, not a fixed pause after each round, so the bound, and
     * the commits that follow it, move at that rate however long a round takes); a round that took longer is followed
     * by the next at once.
     */
    private void loop() {
        long next = System.nanoTime();
        while (!closed) {
            round();
            next = Math.max(next + PROBE_EVERY.toNanos(), System.nanoTime());
            try {
                long wait = next - System.nanoTime();
                if (wait > 0) {
                    Thread.sleep(Duration.ofNanos(wait));
                }
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** One round over every process (probe thread; package-private for tests). */
    void round() {
        long roundStart = System.nanoTime();
        boolean allAnswered = true;
        long restarts = state.get().restarts();
        for (Process p : processes) {
            if (p.absent) {
                continue;
            }
            Probe probe = probe(p);
            double started = probe.startTime();
            boolean watchedByStartTime = !Double.isNaN(p.startTime);
            if (!probe.answered() || (watchedByStartTime && Double.isNaN(started))) {
                if (!p.suspect) {
                    log.debug("{} did not answer the durability probe: commits wait until it does", p.shown);
                }
                p.suspect = true;
                allAnswered = false;
                continue;
            }
            double uptime = probe.uptime();
            if (watchedByStartTime && started != p.startTime) {
                restarts++;
                restarted(p, "started at " + instant(started) + " (was " + instant(p.startTime) + ")");
                p.startTime = started;
            } else if (watchedByStartTime && uptime < p.uptime) {
                restarts++;
                restarted(
                        p,
                        "started again within its start second " + instant(started) + " (uptime " + uptime + "s, was "
                                + p.uptime + "s)");
            } else if (!watchedByStartTime && p.suspect) {
                restarts++;
                restarted(p, "did not answer and answers again (no start time on its page: taken as a restart)");
            }
            if (!watchedByStartTime && !Double.isNaN(started)) {
                p.startTime =
                        started; // unreadable at start (down, or not yet up): from now on watched by its start time
            }
            p.uptime = uptime;
            p.suspect = false;
        }
        State before = state.get();
        long bound = allAnswered ? roundStart - window.toNanos() : before.durableBeforeNanos();
        state.set(new State(restarts, Math.max(bound, before.durableBeforeNanos())));
    }

    private void restarted(Process p, String what) {
        meters.tsdbRestart(p.shown);
        lastRestart = p.shown + " " + what;
        log.info(
                "TSDB restart: {}: samples acknowledged in the last {}s may not have been stored",
                lastRestart,
                window.toSeconds());
    }

    @Override
    public String lastRestart() {
        return lastRestart;
    }

    private static String instant(double epochSeconds) {
        return Instant.ofEpochMilli(Math.round(epochSeconds * 1000)).toString();
    }

    private Probe probe(Process p) {
        Request req = new Request.Builder().url(p.metricsUrl).get().build();
        try (Response resp = http.newCall(req).execute()) {
            if (!resp.isSuccessful() || resp.body() == null) {
                return new Probe(true, resp.code(), null);
            }
            return new Probe(true, resp.code(), PromSnapshot.parse(resp.body().string(), System.nanoTime()));
        } catch (IOException | RuntimeException e) {
            return new Probe(false, 0, null);
        }
    }

    /** Stops probing. Idempotent. */
    @Override
    public synchronized void close() {
        closed = true;
        if (thread != null) {
            thread.interrupt();
        }
    }
}
