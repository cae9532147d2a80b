package io.tsdbwriter.it.support;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The settings of one writer job that reads a topic of the class's broker to its end and writes it by remote write
 * ({@code run ... --output remote-write --stop-at-end}), as {@link Stack#writer(String, RemoteWriteRun)} starts it. The
 * VictoriaMetrics URL every {@code run} takes is {@link #NO_VM}: nothing is written there.
 *
 * <p>Built with {@link #builder()}; {@code topic}, {@code group}, {@code url} and {@code version} are required, the rest
 * default to M = N = P = 1, the writer's default input format, the write targets' {@code /metrics} read (no
 * {@code --tsdb-metrics-url}), no {@code --summary-json} and no further flags. Immutable; thread-safe.
 *
 * @param topic {@code --topic}: one topic or several, comma-separated
 * @param group {@code --group-id}
 * @param url {@code --remote-write-url}: the receiver's write endpoint
 * @param version {@code --remote-write-version}: 1 or 2
 * @param timeMultiplier {@code --time-multiplier} (M), at least 1
 * @param instanceMultiplier {@code --instance-multiplier} (N), at least 1
 * @param parallelism {@code --parallelism} (P), at least 1
 * @param inputFormat {@code --input-format} ({@code prometheus}, {@code otlp}, …); null for the writer's default
 * @param tsdbMetricsNone whether {@code --tsdb-metrics-url none} is given: no {@code /metrics} read (a receiver that
 *     serves none, or records every request)
 * @param summaryJson {@code --summary-json}; null for none
 * @param flags further flags, appended as given
 */
public record RemoteWriteRun(
        String topic,
        String group,
        String url,
        int version,
        int timeMultiplier,
        int instanceMultiplier,
        int parallelism,
        String inputFormat,
        boolean tsdbMetricsNone,
        Path summaryJson,
        List<String> flags) {

    /** The {@code --vm-url} of every remote write run: a closed loopback port, never written to. */
    public static final String NO_VM = "http://127.0.0.1:1";

    /**
     * @throws NullPointerException when {@code topic}, {@code group}, {@code url} or {@code flags} is null
     * @throws IllegalArgumentException when {@code version} is not 1 or 2, or a multiplier or the parallelism is below 1
     */
    public RemoteWriteRun {
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
        flags = List.copyOf(flags);
    }

    /** A builder with the defaults above and nothing required set yet. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The flags after the standard {@code run} ones ({@link Stack#runArgs}): {@code [--input-format F] --output
     * remote-write --remote-write-url U --remote-write-version V --stop-at-end [--tsdb-metrics-url none]
     * [--summary-json S]}, then {@link #flags}.
     */
    public List<String> remoteWriteFlags() {
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
        return a;
    }

    /** Builder of a {@link RemoteWriteRun}; not thread-safe. */
    public static final class Builder {
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

        private Builder() {}

        /** {@code --topic} (required). */
        public Builder topic(String topic) {
            this.topic = topic;
            return this;
        }

        /** {@code --group-id} (required). */
        public Builder group(String group) {
            this.group = group;
            return this;
        }

        /** {@code --remote-write-url} (required). */
        public Builder url(String url) {
            this.url = url;
            return this;
        }

        /** {@code --remote-write-version}: 1 or 2 (required). */
        public Builder version(int version) {
            this.version = version;
            return this;
        }

        /** {@code --time-multiplier} M and {@code --instance-multiplier} N (default 1 and 1). */
        public Builder multipliers(int m, int n) {
            this.timeMultiplier = m;
            this.instanceMultiplier = n;
            return this;
        }

        /** {@code --parallelism} P (default 1). */
        public Builder parallelism(int p) {
            this.parallelism = p;
            return this;
        }

        /** {@code --input-format} (default: not given, the writer's default). */
        public Builder inputFormat(String format) {
            this.inputFormat = format;
            return this;
        }

        /** Gives {@code --tsdb-metrics-url none} (default: not given, the write targets' {@code /metrics} read). */
        public Builder tsdbMetricsNone() {
            this.tsdbMetricsNone = true;
            return this;
        }

        /** {@code --summary-json} (default: not given). */
        public Builder summaryJson(Path file) {
            this.summaryJson = file;
            return this;
        }

        /** Appends further flags (and their values), given after all others; may be called more than once. */
        public Builder flags(String... more) {
            flags.addAll(List.of(more));
            return this;
        }

        /**
         * The settings.
         *
         * @throws NullPointerException when the topic, group or URL is not set
         * @throws IllegalArgumentException when the version is not set to 1 or 2, or M, N or P is below 1
         */
        public RemoteWriteRun build() {
            return new RemoteWriteRun(
                    topic,
                    group,
                    url,
                    version,
                    timeMultiplier,
                    instanceMultiplier,
                    parallelism,
                    inputFormat,
                    tsdbMetricsNone,
                    summaryJson,
                    flags);
        }
    }
}
