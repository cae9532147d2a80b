package io.tsdbwriter.it.support;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The settings of one writer job that reads a topic of the class's broker to its end and writes it by remote write, as
 * {@link Stack#writer(String, RemoteWriteRun)} starts it: {@link Stack#runArgs} against {@link #NO_VM}, then
 * {@code [--input-format F] --output remote-write --remote-write-url U --remote-write-version V --stop-at-end
 * [--tsdb-metrics-url none] [--summary-json S]} and the further {@link #flags}.
 *
 * <p>{@link #topic}, {@link #group}, {@link #url} and {@link #version} are required; the rest default to M = N = P = 1,
 * the writer's default input format, the write targets' {@code /metrics} read (no {@code --tsdb-metrics-url}), no
 * {@code --summary-json} and no further flags. Each setter returns this. Not thread-safe: set up, then started, by one
 * test.
 */
public final class RemoteWriteRun {

    /** The {@code --vm-url} of every remote write run: a closed loopback port, never written to. */
    public static final String NO_VM = "http://127.0.0.1:1";

    private String topic;
    private String group;
    private String url;
    private int version;
    private int timeMultiplier = 1;
    private int instanceMultiplier = 1;
    private int parallelism = 1;
    private String inputFormat;
    private boolean tsdbMetricsNone;
    private Path summaryJson;
    private final List<String> flags = new ArrayList<>();

    /** {@code --topic}: one topic or several, comma-separated (required). */
    public RemoteWriteRun topic(String topic) {
        this.topic = topic;
        return this;
    }

    /** {@code --group-id} (required). */
    public RemoteWriteRun group(String group) {
        this.group = group;
        return this;
    }

    /** {@code --remote-write-url}: the receiver's write endpoint (required). */
    public RemoteWriteRun url(String url) {
        this.url = url;
        return this;
    }

    /** {@code --remote-write-version}: 1 or 2 (required). */
    public RemoteWriteRun version(int version) {
        this.version = version;
        return this;
    }

    /** {@code --time-multiplier} M and {@code --instance-multiplier} N, each at least 1 (default 1 and 1). */
    public RemoteWriteRun multipliers(int m, int n) {
        this.timeMultiplier = m;
        this.instanceMultiplier = n;
        return this;
    }

    /** {@code --parallelism} P, at least 1 (default 1). */
    public RemoteWriteRun parallelism(int p) {
        this.parallelism = p;
        return this;
    }

    /** {@code --input-format} ({@code prometheus}, {@code otlp}, …; default: not given, the writer's default). */
    public RemoteWriteRun inputFormat(String format) {
        this.inputFormat = format;
        return this;
    }

    /**
     * Gives {@code --tsdb-metrics-url none}: no {@code /metrics} read, for a receiver that serves none or records every
     * request (default: not given, the write targets' {@code /metrics} read).
     */
    public RemoteWriteRun tsdbMetricsNone() {
        this.tsdbMetricsNone = true;
        return this;
    }

    /** {@code --summary-json} (default: not given). */
    public RemoteWriteRun summaryJson(Path file) {
        this.summaryJson = file;
        return this;
    }

    /** Appends further flags (and their values), given after all others; may be called more than once. */
    public RemoteWriteRun flags(String... more) {
        flags.addAll(List.of(more));
        return this;
    }

    /**
     * The whole {@code run} command line against {@code stack}'s broker, in the order the class comment gives.
     *
     * @throws NullPointerException when the topic, group or URL is not set
     * @throws IllegalArgumentException when the version is not 1 or 2, or M, N or P is below 1
     */
    List<String> args(Stack stack) {
        Objects.requireNonNull(topic, "topic");
        Objects.requireNonNull(group, "group");
        Objects.requireNonNull(url, "url");
        if (version != 1 && version != 2) {
            throw new IllegalArgumentException("remote write version must be 1 or 2, got " + version);
        }
        if (timeMultiplier < 1 || instanceMultiplier < 1 || parallelism < 1) {
            throw new IllegalArgumentException("M, N and P must be at least 1, got " + timeMultiplier + ", "
                    + instanceMultiplier + ", " + parallelism);
        }
        List<String> a = new ArrayList<>();
        if (inputFormat != null) {
            a.addAll(List.of("--input-format", inputFormat));
        }
        a.addAll(List.of(
                "--output",
                "remote-write",
                "--remote-write-url",
                url,
                "--remote-write-version",
                Integer.toString(version),
                "--stop-at-end"));
        if (tsdbMetricsNone) {
            a.addAll(List.of("--tsdb-metrics-url", "none"));
        }
        if (summaryJson != null) {
            a.addAll(List.of("--summary-json", summaryJson.toString()));
        }
        a.addAll(flags);
        return stack.runArgs(
                NO_VM, topic, group, timeMultiplier, instanceMultiplier, parallelism, a.toArray(String[]::new));
    }
}
