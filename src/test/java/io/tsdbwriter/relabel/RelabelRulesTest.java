package io.tsdbwriter.relabel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Each action as Prometheus 3's {@code model/relabel} applies it: the expected label sets are those of its
 * {@code relabel_test.go} (TestRelabel), and of its {@code relabel.go} where the test has no case (labelmap order,
 * Go's {@code Expand}, simple case mapping).
 */
class RelabelRulesTest {

    /** The labels after {@code yaml}'s rules, sorted by name; null when dropped. */
    static Map<String, String> relabel(String yaml, String... pairs) {
        String[] names = new String[pairs.length / 2];
        String[] values = new String[pairs.length / 2];
        for (int i = 0; i < names.length; i++) {
            names[i] = pairs[2 * i];
            values[i] = pairs[2 * i + 1];
        }
        String[][] out = RelabelRules.parse(yaml, "test.yml").process(names, values);
        if (out == null) {
            return null;
        }
        Map<String, String> m = new TreeMap<>();
        for (int i = 0; i < out[0].length; i++) {
            m.put(out[0][i], out[1][i]);
        }
        return m;
    }

    private static Map<String, String> labels(String... pairs) {
        Map<String, String> m = new TreeMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            m.put(pairs[i], pairs[i + 1]);
        }
        return m;
    }

    /** The input labels as name, value pairs. */
    private static String[] in(String... pairs) {
        return pairs;
    }

    /** The labels a case expects after the rules: none, as the series is dropped. */
    private static final Map<String, String> DROPPED = null;

    private static final String NAMED_GROUPS =
            """
            - {source_labels: [a], regex: '(line1).*(?P<second>line2)', target_label: 'label1_${1}', replacement: 'val_${second}'}
            - {source_labels: [a], regex: '(line1).*(?P<second>line2)', target_label: 'label2_$1', replacement: 'val_$second'}
            """;

    private static Arguments rules(String name, String yaml, String[] in, Map<String, String> expected) {
        return arguments(name, yaml, in, expected);
    }

    /** Rules and input labels → the labels after them (sorted by name), or {@link #DROPPED}. */
    static Stream<Arguments> relabels() {
        return Stream.of(
                // replace
                rules(
                        "replace writes the expanded replacement to the target",
                        "- {source_labels: [a], regex: 'f(.*)', target_label: d, replacement: 'ch${1}-ch${1}'}",
                        in("a", "foo", "b", "bar", "c", "baz"),
                        labels("a", "foo", "b", "bar", "c", "baz", "d", "choo-choo")),
                rules(
                        "replace joins sources with the separator and later rules see earlier results",
                        """
                        - source_labels: [a, b]
                          regex: 'f(.*);(.*)r'
                          target_label: a
                          replacement: 'b${1}${2}m'
                        - source_labels: [c, a]
                          regex: '(b).*b(.*)ba(.*)'
                          target_label: d
                          replacement: '$1$2$2$3'
                        """,
                        in("a", "foo", "b", "bar", "c", "baz"),
                        labels("a", "boobam", "b", "bar", "c", "baz", "d", "boooom")),
                rules(
                        "replace without a match changes nothing",
                        "- {source_labels: [a], regex: f, target_label: b, replacement: bar}",
                        in("a", "boo"),
                        labels("a", "boo")),
                rules(
                        "the regex is anchored at both ends: no drop",
                        "- {source_labels: [a], regex: 'f|o', action: drop}",
                        in("a", "foo"),
                        labels("a", "foo")),
                rules(
                        "the regex is anchored at both ends: the group of a whole match",
                        "- {source_labels: [a], regex: '.*(b).*', target_label: d}",
                        in("a", "abc"),
                        labels("a", "abc", "d", "b")),
                rules(
                        "dot matches a newline as Prometheus compiles with the s flag",
                        "- {source_labels: [a], regex: 'line1.*line2', target_label: d, replacement: 'match${1}'}",
                        in("a", "line1\nline2"),
                        labels("a", "line1\nline2", "d", "match")),
                rules(
                        "an empty replacement deletes the target",
                        "- {source_labels: [a], regex: '(f).*', target_label: '$1', replacement: '$2'}",
                        in("a", "foo", "f", "baz"),
                        labels("a", "foo")),
                rules(
                        "the target label is expanded",
                        "- {source_labels: [a], regex: 'some-([^-]+)-([^,]+)', replacement: '${2}', target_label: '${1}'}",
                        in("a", "some-name-value"),
                        labels("a", "some-name-value", "name", "value")),
                rules(
                        "an empty target changes nothing",
                        "- {source_labels: [a], regex: 'some-([^-]+)-([^,]+)', replacement: '${1}', target_label: '${3}'}",
                        in("a", "some-name-0"),
                        labels("a", "some-name-0")),
                rules(
                        "named groups expand in both spellings",
                        NAMED_GROUPS,
                        in("a", "line1\nline2"),
                        labels("a", "line1\nline2", "label1_line1", "val_line2", "label2_line1", "val_line2")),
                // $1x is the group named "1x" (none: empty), $$ a dollar, a $ without a name stays
                rules(
                        "expansion follows Go's Expand for dollar names that run on",
                        "- {source_labels: [a], regex: '(.*)', target_label: b, replacement: '$1x|${1}x|$$1|$-|$'}",
                        in("a", "v"),
                        labels("a", "v", "b", "|vx|$1|$-|$")),
                rules(
                        "a missing source label is the empty string",
                        "- {source_labels: [missing], target_label: t, replacement: fixed}",
                        in("a", "1"),
                        labels("a", "1", "t", "fixed")),
                rules(
                        "no source labels: the empty string",
                        "- {target_label: loadtest, replacement: '1'}",
                        in("a", "1"),
                        labels("a", "1", "loadtest", "1")),
                // drop and keep
                rules(
                        "drop drops when the regex matches",
                        "- {source_labels: [a], regex: '.*o.*', action: drop}",
                        in("a", "foo", "b", "bar"),
                        DROPPED),
                rules(
                        "drop keeps when the regex does not match",
                        "- {source_labels: [a], regex: no-match, action: drop}",
                        in("a", "foo"),
                        labels("a", "foo")),
                rules(
                        "a drop ends the rules at once",
                        """
                        - {source_labels: [a], regex: '.*o.*', action: drop}
                        - {source_labels: [a], regex: 'f(.*)', target_label: d, replacement: 'ch$1-ch$1'}
                        """,
                        in("a", "foo"),
                        DROPPED),
                rules(
                        "keep drops when the regex does not match",
                        "- {source_labels: [a], regex: no-match, action: keep}",
                        in("a", "foo"),
                        DROPPED),
                rules(
                        "keep keeps when the regex matches",
                        "- {source_labels: [a], regex: 'f.*', action: keep}",
                        in("a", "foo"),
                        labels("a", "foo")),
                rules(
                        "keepequal keeps when the target equals the sources",
                        "- {source_labels: [__tmp_port], action: keepequal, target_label: __port1}",
                        in("__tmp_port", "1234", "__port1", "1234", "__port2", "5678"),
                        labels("__tmp_port", "1234", "__port1", "1234", "__port2", "5678")),
                rules(
                        "keepequal drops when the target differs",
                        "- {source_labels: [__tmp_port], action: keepequal, target_label: __port2}",
                        in("__tmp_port", "1234", "__port1", "1234", "__port2", "5678"),
                        DROPPED),
                rules(
                        "dropequal drops when the target equals the sources",
                        "- {source_labels: [__tmp_port], action: dropequal, target_label: __port1}",
                        in("__tmp_port", "1234", "__port1", "1234", "__port2", "5678"),
                        DROPPED),
                rules(
                        "dropequal keeps when the target differs",
                        "- {source_labels: [__tmp_port], action: dropequal, target_label: __port2}",
                        in("__tmp_port", "1234", "__port1", "1234", "__port2", "5678"),
                        labels("__tmp_port", "1234", "__port1", "1234", "__port2", "5678")),
                // hashmod: the last eight bytes of the MD5 modulo the modulus
                rules(
                        "hashmod of baz modulo 1000",
                        "- {source_labels: [c], target_label: d, action: hashmod, modulus: 1000}",
                        in("a", "foo", "b", "bar", "c", "baz"),
                        labels("a", "foo", "b", "bar", "c", "baz", "d", "976")),
                rules(
                        "hashmod of a value with a newline",
                        "- {source_labels: [a], target_label: b, action: hashmod, modulus: 1000}",
                        in("a", "foo\nbar"),
                        labels("a", "foo\nbar", "b", "734")),
                // labelmap, labeldrop, labelkeep
                rules(
                        "labelmap copies matching labels under the expanded name",
                        "- {regex: '(b.*)', replacement: 'bar_${1}', action: labelmap}",
                        in("a", "foo", "b1", "bar", "b2", "baz"),
                        labels("a", "foo", "b1", "bar", "b2", "baz", "bar_b1", "bar", "bar_b2", "baz")),
                rules(
                        "labelmap of meta labels",
                        "- {regex: '__meta_(my.*)', replacement: '${1}', action: labelmap}",
                        in("a", "foo", "__meta_my_bar", "aaa", "__meta_my_baz", "bbb", "__meta_other", "ccc"),
                        labels(
                                "a",
                                "foo",
                                "__meta_my_bar",
                                "aaa",
                                "__meta_my_baz",
                                "bbb",
                                "__meta_other",
                                "ccc",
                                "my_bar",
                                "aaa",
                                "my_baz",
                                "bbb")),
                // labels.Builder.Range visits the base labels by name: x_b is set after x_a, and wins
                rules(
                        "labelmap of two labels to one name keeps the later in name order",
                        "- {regex: 'x_.*', replacement: 'y', action: labelmap}",
                        in("x_b", "2", "x_a", "1"),
                        labels("x_a", "1", "x_b", "2", "y", "2")),
                rules(
                        "labeldrop removes matching names",
                        "- {regex: '(b.*)', action: labeldrop}",
                        in("a", "foo", "b1", "bar", "b2", "baz"),
                        labels("a", "foo")),
                rules(
                        "labelkeep removes the others",
                        "- {regex: '(b.*)', action: labelkeep}",
                        in("a", "foo", "b1", "bar", "b2", "baz"),
                        labels("b1", "bar", "b2", "baz")),
                // issue 12283 of Prometheus: labeldrop, then replace the same name, then keep on it
                rules(
                        "a dropped label can be set again",
                        """
                        - {regex: '^__meta_kubernetes_pod_container_port_name$', action: labeldrop}
                        - {source_labels: [__meta_kubernetes_pod_annotation_XXX_metrics_port], regex: '(.+)', replacement: metrics,
                           target_label: __meta_kubernetes_pod_container_port_name}
                        - {source_labels: [__meta_kubernetes_pod_container_port_name], regex: '^metrics$', action: keep}
                        """,
                        in(
                                "__meta_kubernetes_pod_container_port_name",
                                "foo",
                                "__meta_kubernetes_pod_annotation_XXX_metrics_port",
                                "9091"),
                        labels(
                                "__meta_kubernetes_pod_annotation_XXX_metrics_port",
                                "9091",
                                "__meta_kubernetes_pod_container_port_name",
                                "metrics")),
                // lowercase, uppercase
                rules(
                        "lowercase and uppercase map each character",
                        """
                        - {source_labels: [foo], action: uppercase, target_label: foo_uppercase}
                        - {source_labels: [foo], action: lowercase, target_label: foo_lowercase}
                        """,
                        in("foo", "bAr123Foo"),
                        labels("foo", "bAr123Foo", "foo_lowercase", "bar123foo", "foo_uppercase", "BAR123FOO")),
                rules(
                        "the metric name is a label like any other",
                        "- {source_labels: [__name__], regex: '.*_total$', target_label: __type__, replacement: counter}",
                        in("__name__", "http_requests_total"),
                        labels("__name__", "http_requests_total", "__type__", "counter")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void relabels(String name, String yaml, String[] in, Map<String, String> expected) {
        assertThat(relabel(yaml, in)).isEqualTo(expected);
    }

    @Test
    void hashmodTakesAModulusAboveTheSignedRange() {
        long h = RelabelRule.md5Tail("baz");
        String expected = Long.toUnsignedString(Long.remainderUnsigned(h, -2L)); // modulus 2^64 - 2
        assertThat(relabel(
                        "- {source_labels: [c], target_label: d, action: hashmod, modulus: 18446744073709551614}",
                        "c",
                        "baz"))
                .containsEntry("d", expected);
    }

    @Test
    void uppercaseMapsEachCharacterAsGoDoes() {
        // Go's strings.ToUpper keeps ß (no simple upper case); Java's String.toUpperCase would write SS
        assertThat(relabel("- {source_labels: [s], action: uppercase, target_label: u}", "s", "straße"))
                .containsEntry("u", "STRAßE");
    }

    @Test
    void applySplitsTheNameOffAndDropsASeriesLeftWithoutIt() {
        RelabelRules rules = RelabelRules.parse(
                """
                - {source_labels: [__name__], regex: 'old_(.*)', target_label: __name__, replacement: 'new_$1'}
                - {regex: 'noisy', action: labeldrop}
                - {source_labels: [__name__], regex: 'gone', target_label: __name__, replacement: ''}
                """,
                "t.yml");
        RelabelRules.Relabeled r =
                rules.apply("old_cpu", new String[] {"zone", "noisy", "host"}, new String[] {"z", "n", "h"}, 0, 3);
        assertThat(r.metric()).isEqualTo("new_cpu");
        assertThat(r.names()).containsExactly("host", "zone");
        assertThat(r.values()).containsExactly("h", "z");
        assertThat(rules.apply("gone", new String[] {"a"}, new String[] {"1"}, 0, 1))
                .as("__name__ deleted")
                .isNull();
    }

    @Test
    void resultNamesAreSortedByCodePointAsGoSortsStrings() {
        // U+1F600 (a surrogate pair in Java) sorts after U+FF5E in UTF-8 byte order, before it in UTF-16 order
        assertThat(RelabelRules.parse("[]", "t")
                        .process(new String[] {"\uD83D\uDE00", "\uFF5E"}, new String[] {"1", "2"})[0])
                .containsExactly("\uFF5E", "\uD83D\uDE00");
    }

    @Test
    void anEmptyFileIsNoRule() {
        assertThat(RelabelRules.parse("", "t").rules()).isEmpty();
        assertThat(RelabelRules.parse("# nothing\n", "t").rules()).isEmpty();
    }

    /** README's "Relabeling" example does what README says it does. */
    @Test
    void readmesExampleTagsTheLoadDropsTheLabelsAndTheSeriesItNames() throws Exception {
        String readme = Files.readString(Path.of("README.md"));
        int from = readme.indexOf("# relabel.yml\n");
        String yaml = readme.substring(from, readme.indexOf("```", from));
        RelabelRules rules = RelabelRules.parse(yaml, "README.md");

        RelabelRules.Relabeled kept =
                rules.apply("node_load1", new String[] {"instanceNo", "pod_uid"}, new String[] {"h", "u"}, 0, 2);
        assertThat(kept.metric()).isEqualTo("node_load1");
        assertThat(kept.names()).containsExactly("instanceNo", "loadtest");
        assertThat(kept.values()).containsExactly("h", "1");
        assertThat(rules.apply("go_gc_duration_seconds", new String[] {"instanceNo"}, new String[] {"h"}, 0, 1))
                .isNull();
    }
}
