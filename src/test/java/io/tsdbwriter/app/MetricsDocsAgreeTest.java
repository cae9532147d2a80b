package io.tsdbwriter.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every metric name an operator reads agrees with the meter catalogue, as {@code DocsAgreeTest} holds the flags: the
 * meters the sources declare are all served by the registry {@link MetricsReference} scrapes (so docs/metrics.md,
 * which {@code MetricsReferenceTest} holds equal to that scrape, lists every one); every {@code tsdbwriter_} name that
 * README, the pages of docs/, the dashboard and the Kubernetes alert rules name is a served family (or one of its
 * series: {@code _bucket}, {@code _count}, {@code _sum}, {@code _max}); and the reference describes the meters in
 * words true of every output, not of one protocol's endpoint.
 */
class MetricsDocsAgreeTest {

    /** A meter the sources declare: {@code Counter.builder(PREFIX + "records.consumed")}, {@code meters.gauge("…")}. */
    private static final Pattern DECLARED = Pattern.compile(
            "(?:builder\\(\\s*PREFIX\\s*\\+\\s*|meters\\s*\\.gauge\\(\\s*|NAME\\s*=\\s*WriterMeters\\.PREFIX\\s*\\+\\s*)"
                    + "\"([a-z][a-z.]*)\"");

    /**
     * A metric name in a text: {@code tsdbwriter_x}, {@code tsdbwriter_{hourly,daily}_x} (alternatives: braces followed
     * by more of the name, unlike a selector's or a label list's), {@code tsdbwriter_x_*}.
     */
    private static final Pattern NAMED =
            Pattern.compile("tsdbwriter_[a-z0-9_*]*(?:\\{[a-z0-9_,]+}_[a-z0-9_*]*)*"); // {…} then _: alternatives

    /** Words of one protocol that a meter of every output must not be described by. */
    private static final Pattern PROTOCOL_WORDS =
            Pattern.compile("/api/v1/|\\bimport requests?\\b|\\bVictoriaMetrics\\b", Pattern.CASE_INSENSITIVE);

    /** A row of the reference's table: group 1 the metric, group 2 its description. */
    private static final Pattern ROW = Pattern.compile(
            "^\\| `(tsdbwriter_[a-z0-9_]+)` \\|[^|]*\\|[^|]*\\| (.*) \\| [^|]* \\|$", Pattern.MULTILINE);

    /** The result files of docs/benchmarks.md: other builds' output, no pages. */
    private static final Path BENCHMARK_RESULTS = Path.of("docs", "benchmarks");

    private static final Set<String> SERIES_SUFFIXES = Set.of("_bucket", "_count", "_sum", "_max");

    @Test
    void everyMeterTheSourcesDeclareIsServedAndSoOnTheMetricsPage() throws IOException {
        Set<String> served = MetricsReference.served(true).keySet();
        List<String> declared = new ArrayList<>();
        try (Stream<Path> s = Files.walk(Path.of("src", "main", "java"))) {
            for (Path p : s.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
                Matcher m = DECLARED.matcher(Files.readString(p));
                while (m.find()) {
                    declared.add(m.group(1) + " (" + p.getFileName() + ")");
                }
            }
        }
        assertThat(declared).as("meters declared in the sources").hasSizeGreaterThan(30);
        List<String> missing = new ArrayList<>();
        for (String d : declared) {
            String prefix = "tsdbwriter_" + d.substring(0, d.indexOf(' ')).replace('.', '_');
            if (served.stream().noneMatch(f -> f.equals(prefix) || f.startsWith(prefix + "_"))) {
                missing.add(d);
            }
        }
        assertThat(missing)
                .as(
                        "meters the sources declare that MetricsReference's scrape (and so %s) lacks: register them in "
                                + "MetricsReference.registerLazily as the service does",
                        MetricsReference.PAGE)
                .isEmpty();
    }

    @Test
    void everyMetricNameTheDocsTheDashboardAndTheAlertsUseIsServed() throws IOException {
        Set<String> served = MetricsReference.served(true).keySet();
        List<String> unknown = new ArrayList<>();
        int names = 0;
        for (Map.Entry<Path, String> text : operatorTexts().entrySet()) {
            List<String> lines = text.getValue().lines().toList();
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = NAMED.matcher(lines.get(i));
                while (m.find()) {
                    for (String name : expanded(m.group())) {
                        names++;
                        if (!isServed(name, served)) {
                            unknown.add(text.getKey() + ":" + (i + 1) + ": " + name);
                        }
                    }
                }
            }
        }
        assertThat(names).as("tsdbwriter_ names found").isGreaterThan(100);
        assertThat(unknown)
                .as("metric names no meter of the catalogue serves (renamed or removed?)")
                .isEmpty();
    }

    @Test
    void theReferenceDescribesEveryMeterInWordsOfEveryOutput() throws IOException {
        Matcher m = ROW.matcher(Files.readString(MetricsReference.PAGE));
        List<String> bound = new ArrayList<>();
        int rows = 0;
        while (m.find()) {
            rows++;
            if (PROTOCOL_WORDS.matcher(m.group(2)).find()) {
                bound.add(m.group(1) + ": " + m.group(2));
            }
        }
        for (String appears : MetricsReference.APPEARS.values()) {
            if (PROTOCOL_WORDS.matcher(appears).find()) {
                bound.add("appears: " + appears);
            }
        }
        assertThat(rows).as("rows of %s", MetricsReference.PAGE).isGreaterThan(30);
        assertThat(bound)
                .as("descriptions naming one protocol (the writer writes import and remote write alike): say "
                        + "'write request', 'the TSDB'")
                .isEmpty();
    }

    /** README, the pages of docs/ (their result files excepted), the dashboard and the Kubernetes manifests. */
    private static Map<Path, String> operatorTexts() throws IOException {
        Map<Path, String> texts = new TreeMap<>();
        texts.put(Path.of("README.md"), Files.readString(Path.of("README.md")));
        for (String dir : List.of("docs", "grafana", "k8s")) {
            try (Stream<Path> s = Files.walk(Path.of(dir))) {
                for (Path p : s.filter(Files::isRegularFile)
                        .filter(p -> p.toString().matches(".*\\.(md|json|ya?ml)$"))
                        .filter(p -> !p.startsWith(BENCHMARK_RESULTS))
                        .toList()) {
                    texts.put(p, Files.readString(p));
                }
            }
        }
        return texts;
    }

    /** {@code tsdbwriter_{hourly,daily}_x} as its two names; any other name as itself. */
    private static List<String> expanded(String name) {
        int open = name.indexOf('{');
        int close = name.indexOf('}', open + 1);
        if (open < 0 || close < 0) {
            return List.of(name.replace("{", "").replace("}", ""));
        }
        List<String> out = new ArrayList<>();
        for (String alternative : name.substring(open + 1, close).split(",")) {
            out.addAll(expanded(name.substring(0, open) + alternative + name.substring(close + 1)));
        }
        return out;
    }

    private static boolean isServed(String name, Set<String> served) {
        if (name.endsWith("*")) { // a family of names: some served one starts so
            String prefix = name.substring(0, name.length() - 1);
            return served.stream().anyMatch(f -> f.startsWith(prefix));
        }
        if (name.endsWith("_")) { // a prefix written out in prose: tsdbwriter_ alone
            return served.stream().anyMatch(f -> f.startsWith(name));
        }
        if (served.contains(name)) {
            return true;
        }
        for (String suffix : SERIES_SUFFIXES) {
            if (name.endsWith(suffix) && served.contains(name.substring(0, name.length() - suffix.length()))) {
                return true;
            }
        }
        return false;
    }
}
