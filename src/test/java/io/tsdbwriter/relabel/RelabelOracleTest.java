package io.tsdbwriter.relabel;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer's relabeling against an oracle that is not ours: Prometheus' own {@code model/relabel} (the module version
 * of the Prometheus 3 the suite builds, {@code prometheus.current.version}) in the small Go program
 * {@code src/test/go/relabel-oracle}, built by {@code scripts/test.sh} (phase "build relabel oracle") into
 * {@code ~/.cache/tsdb-writer/bin/relabel-oracle}. The same label sets go through both with a config that uses every
 * action; every result must be equal, a drop included. Without the binary the test is skipped, except under
 * {@code CI=true}, where it fails.
 */
class RelabelOracleTest {

    static final Path ORACLE = Path.of(System.getProperty("user.home"), ".cache/tsdb-writer/bin/relabel-oracle");
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Every action, Go's Expand ($1x, named groups), a separator, a null regex, UTF-8 names and the metric name. */
    static final String EVERY_ACTION =
            """
            - {source_labels: [__name__], regex: 'go_gc_.*', action: drop}
            - {source_labels: [job], regex: 'node|app.*|', action: keep}
            - {source_labels: [__tmp_a], target_label: __tmp_b, action: dropequal}
            - {source_labels: [__tmp_c], target_label: __tmp_d, action: keepequal}
            - {source_labels: [instance, cpu], separator: ':', target_label: shard, modulus: 8, action: hashmod}
            - {regex: '__meta_(.+)', replacement: 'meta_$1', action: labelmap}
            - {regex: '__meta_.*|__tmp_.*', action: labeldrop}
            - {source_labels: [mode], target_label: MODE, action: uppercase}
            - {source_labels: [Host], target_label: host, action: lowercase}
            - {regex: 'Host|__name__|job|instance|cpu|mode|MODE|host|shard|meta_.*|env|name|pod|zone|ünï.*', action: labelkeep}
            - {source_labels: [__name__], regex: '(.*)_total', target_label: __name__, replacement: '${1}_count'}
            - {source_labels: [pod], regex: '(?P<app>[a-z]+)-(?P<hash>[0-9a-f]+)', target_label: 'app_$app', replacement: '${hash}'}
            - {target_label: loadtest, replacement: '1'}
            - {source_labels: [zone], regex: , target_label: zone, replacement: none}
            - {source_labels: [env, name], regex: '(.*);(.*)', target_label: env, replacement: '$2$1x|$$|${1}'}
            - {source_labels: [cpu], regex: '7', target_label: __name__, replacement: ''}
            """;

    @Test
    void everyActionGivesWhatPrometheusModelRelabelGives(@TempDir Path dir) throws Exception {
        assumeOracle();
        List<Map<String, String>> series = series(400);
        List<Map<String, String>> expected = oracle(dir, EVERY_ACTION, series);
        RelabelRules rules = RelabelRules.parse(EVERY_ACTION, "every-action.yml");

        int dropped = 0;
        for (int i = 0; i < series.size(); i++) {
            Map<String, String> in = series.get(i);
            String[][] out = rules.process(
                    in.keySet().toArray(String[]::new), in.values().toArray(String[]::new));
            Map<String, String> got = null;
            if (out != null) {
                got = new TreeMap<>();
                for (int k = 0; k < out[0].length; k++) {
                    got.put(out[0][k], out[1][k]);
                }
            }
            assertThat(got)
                    .as("series %d %s", i, in)
                    .isEqualTo(expected.get(i) == null ? null : new TreeMap<>(expected.get(i)));
            dropped += got == null ? 1 : 0;
        }
        assertThat(dropped).as("some series dropped, most kept").isBetween(1, series.size() - 1);
    }

    /** Configs Prometheus refuses (strict YAML, then Validate with UTF-8 names): the writer refuses each too. */
    static final List<String> INVALID = List.of(
            "- {action: rename, target_label: t}",
            "- {source_labels: [a], target_label: t, action: hashmod}",
            "- {source_labels: [a], action: replace}",
            "- {source_labels: [a], action: uppercase}",
            "- {source_labels: [a], target_label: t, action: lowercase, replacement: x}",
            "- {source_labels: [a], target_label: t, action: keepequal, regex: '(.*)'}",
            "- {source_labels: [a], target_label: t, action: dropequal, separator: ','}",
            "- {regex: a, action: labeldrop, source_labels: [a]}",
            "- {regex: a, action: labelkeep, target_label: t}",
            "- {regex: a, action: labelmap, replacement: ''}",
            "- {target_label: t, unknown_field: x}",
            "- {source_labels: [a], regex: '(', action: keep}",
            "- {source_labels: [a], regex: '(?=a)', action: keep}",
            "- {action: , target_label: t}");

    /** Configs Prometheus takes, at the edges of its rules: the writer takes each too. */
    static final List<String> VALID = List.of(
            "- {target_label: t}",
            "- {action: LabelDrop, regex: x}",
            "- {source_labels: [a], target_label: '${1}', action: lowercase}",
            "- {source_labels: [a], target_label: 'utf-8.label', replacement: x}",
            "- {source_labels: [a], target_label: t, action: keepequal, replacement: $1}",
            "- {regex: , action: labeldrop}",
            "");

    @Test
    void theWriterRefusesAndTakesTheConfigsPrometheusRefusesAndTakes(@TempDir Path dir) throws Exception {
        assumeOracle();
        for (String config : INVALID) {
            assertThat(oracleExit(dir, config))
                    .as("Prometheus refuses %s", config)
                    .isEqualTo(2);
            assertThat(catchIllegal(config)).as("the writer refuses %s", config).isNotNull();
        }
        for (String config : VALID) {
            assertThat(oracleExit(dir, config))
                    .as("Prometheus takes %s", config)
                    .isZero();
            assertThat(catchIllegal(config)).as("the writer takes %s", config).isNull();
        }
    }

    private static String catchIllegal(String config) {
        try {
            RelabelRules.parse(config, "r.yml");
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    private static int oracleExit(Path dir, String config) throws IOException, InterruptedException {
        Path cfg = dir.resolve("check.yml");
        Files.writeString(cfg, config);
        Process p = new ProcessBuilder(ORACLE.toString(), cfg.toString())
                .redirectInput(ProcessBuilder.Redirect.from(emptyFile(dir)))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        return p.exitValue();
    }

    private static File emptyFile(Path dir) throws IOException {
        Path empty = dir.resolve("empty.jsonl");
        if (!Files.exists(empty)) {
            Files.createFile(empty);
        }
        return empty.toFile();
    }

    private static void assumeOracle() {
        if (!Files.isExecutable(ORACLE)) {
            String why = ORACLE + " is missing: run scripts/test.sh (phase \"build relabel oracle\") or "
                    + "cd src/test/go/relabel-oracle && go build -o " + ORACLE + " .";
            assertThat("true".equals(System.getenv("CI")))
                    .as(why + " (CI=true: a missing oracle fails the test)")
                    .isFalse();
            Assumptions.assumeTrue(false, why);
        }
    }

    /** Varied label sets: every rule's match and miss, absent labels, UTF-8 names and values. */
    static List<Map<String, String>> series(int n) {
        Random r = new Random(54);
        String[] names = {
            "node_cpu_seconds_total", "go_gc_duration_seconds", "http_requests_total", "up", "ünïcode_total"
        };
        String[] jobs = {"node", "app-1", "other", null};
        String[] modes = {"idle", "User", "sÿstem", null};
        List<Map<String, String>> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Map<String, String> m = new LinkedHashMap<>();
            m.put("__name__", names[r.nextInt(names.length)]);
            put(m, "job", jobs[r.nextInt(jobs.length)]);
            put(m, "mode", modes[r.nextInt(modes.length)]);
            put(m, "instance", r.nextBoolean() ? "host-" + r.nextInt(20) : null);
            put(m, "cpu", r.nextInt(4) == 0 ? null : Integer.toString(r.nextInt(9)));
            int tmp = r.nextInt(4);
            put(m, "__tmp_a", tmp > 0 ? "v" + (tmp & 1) : null);
            put(m, "__tmp_b", tmp > 1 ? "v" + r.nextInt(2) : null);
            put(m, "__tmp_c", r.nextInt(3) == 0 ? "c" : null);
            put(m, "__tmp_d", r.nextInt(3) == 0 ? "c" : null);
            put(m, "__meta_pod_name", r.nextBoolean() ? "p" + i : null);
            put(m, "__meta_zone", r.nextInt(3) == 0 ? "eu-1" : null);
            put(m, "Host", r.nextBoolean() ? "Node-" + (char) ('A' + r.nextInt(26)) + "İ" : null);
            put(
                    m,
                    "pod",
                    r.nextInt(3) == 0
                            ? "web-" + Integer.toHexString(r.nextInt(1 << 16))
                            : r.nextBoolean() ? "Web_1" : null);
            put(m, "zone", r.nextBoolean() ? "z" + r.nextInt(3) : null);
            put(m, "env", r.nextBoolean() ? "prod" : null);
            put(m, "name", r.nextBoolean() ? "n" + r.nextInt(5) : null);
            put(m, "ünïcode label", r.nextBoolean() ? "välue\n" + i : null);
            put(m, "noise", "x" + i);
            out.add(m);
        }
        return out;
    }

    private static void put(Map<String, String> m, String name, String value) {
        if (value != null) {
            m.put(name, value);
        }
    }

    /** The oracle's results for {@code series} under {@code config}: a label set, or null where a rule dropped it. */
    static List<Map<String, String>> oracle(Path dir, String config, List<Map<String, String>> series)
            throws IOException, InterruptedException {
        Path cfg = dir.resolve("relabel.yml");
        Files.writeString(cfg, config);
        Path input = dir.resolve("series.jsonl");
        StringBuilder lines = new StringBuilder();
        for (Map<String, String> m : series) {
            lines.append(JSON.writeValueAsString(m)).append('\n');
        }
        Files.writeString(input, lines);
        Process p = new ProcessBuilder(ORACLE.toString(), cfg.toString())
                .redirectInput(input.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        try (OutputStream ignored = p.getOutputStream()) {
            byte[] out = p.getInputStream().readAllBytes();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("oracle ends").isTrue();
            assertThat(p.exitValue()).as("oracle exit").isZero();
            List<Map<String, String>> results = new ArrayList<>();
            for (String l : new String(out, StandardCharsets.UTF_8).split("\n")) {
                results.add(l.equals("null") ? null : JSON.readValue(l, new TypeReference<Map<String, String>>() {}));
            }
            assertThat(results).hasSize(series.size());
            return results;
        } finally {
            p.destroyForcibly();
        }
    }
}
