package io.tsdbwriter.capacity.reads;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The queries of {@code capacity --query-rate}: one PromQL expression a line ({@code #} comment lines and blank lines
 * skipped), each evaluated as a range query over {@link #RANGES} (1 h at a 60 s step, 24 h at a 5 min step). Before a
 * query is sent its placeholders are replaced, as Grafana does: {@code $__range} by the range in seconds
 * ({@code 3600s}, {@code 86400s}), {@code $__interval} by the step ({@code 60s}, {@code 300s}) and
 * {@code $__rate_interval} by max(step + scrape interval, 4 × scrape interval) with the bundled scrapes' 60 s interval
 * ({@code 240s}, {@code 360s}). The bundled set ({@link #BUNDLED}) holds the Grafana dashboard's queries and the
 * node-mixin's node_exporter alert rules. Stateless; thread-safe.
 */
public final class QuerySet {

    /** Class-path resource of the bundled queries. */
    public static final String BUNDLED = "io/tsdbwriter/capacity/queries.promql";
    /** The scrape interval {@code $__rate_interval} assumes: the bundled node_exporter scrapes' one minute. */
    static final Duration SCRAPE_INTERVAL = Duration.ofSeconds(60);
    /** Each expression's ranges and their steps, in the order they are sent: {range, step}. */
    public static final List<Duration[]> RANGES = List.of(
            new Duration[] {Duration.ofHours(1), Duration.ofSeconds(60)},
            new Duration[] {Duration.ofHours(24), Duration.ofMinutes(5)});

    private QuerySet() {}

    /**
     * The bundled queries, expanded over {@link #RANGES} (each expression's 1 h query, then its 24 h one). @throws
     * IOException when the resource is missing
     */
    public static List<RangeQuery> bundled() throws IOException {
        try (InputStream in = QuerySet.class.getClassLoader().getResourceAsStream(BUNDLED)) {
            if (in == null) {
                throw new IOException("resource " + BUNDLED + " missing");
            }
            return parse(new InputStreamReader(in, StandardCharsets.UTF_8), BUNDLED);
        }
    }

    /**
     * The queries of {@code file}, expanded over {@link #RANGES}.
     *
     * @throws IOException              when it cannot be read
     * @throws IllegalArgumentException when it holds no query (the message names the file)
     */
    public static List<RangeQuery> read(Path file) throws IOException {
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            return parse(r, file.toString());
        }
    }

    /** The queries of {@code text} (tests). */
    static List<RangeQuery> parse(String text) {
        try {
            return parse(new StringReader(text), "text");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<RangeQuery> parse(Reader text, String source) throws IOException {
        List<String> expressions = new ArrayList<>();
        BufferedReader r = new BufferedReader(text);
        for (String line = r.readLine(); line != null; line = r.readLine()) {
            String t = line.strip();
            if (!t.isEmpty() && !t.startsWith("#")) {
                expressions.add(t);
            }
        }
        if (expressions.isEmpty()) {
            throw new IllegalArgumentException("--queries " + source
                    + " holds no query (one PromQL a line; # comments and blank lines are skipped)");
        }
        List<RangeQuery> out = new ArrayList<>();
        for (String e : expressions) {
            for (Duration[] rs : RANGES) {
                out.add(new RangeQuery(expand(e, rs[0], rs[1]), rs[0], rs[1]));
            }
        }
        return List.copyOf(out);
    }

    /** {@code promql} with {@code $__range}, {@code $__rate_interval} and {@code $__interval} replaced for this range and step. */
    static String expand(String promql, Duration range, Duration step) {
        long rate = Math.max(step.plus(SCRAPE_INTERVAL).toSeconds(), 4 * SCRAPE_INTERVAL.toSeconds());
        // $__rate_interval first: $__interval is its prefix
        return promql.replace("$__rate_interval", rate + "s")
                .replace("$__interval", step.toSeconds() + "s")
                .replace("$__range", range.toSeconds() + "s");
    }
}
