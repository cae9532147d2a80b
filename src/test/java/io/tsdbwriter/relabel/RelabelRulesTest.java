package io.tsdbwriter.relabel;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

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

    @Test
    void replaceWritesTheExpandedReplacementToTheTarget() {
        assertThat(relabel(
                        "- {source_labels: [a], regex: 'f(.*)', target_label: d, replacement: 'ch${1}-ch${1}'}",
                        "a", "foo", "b", "bar", "c", "baz"))
                .isEqualTo(labels("a", "foo", "b", "bar", "c", "baz", "d", "choo-choo"));
    }

    @Test
    void replaceJoinsSourcesWithTheSeparatorAndLaterRulesSeeEarlierResults() {
        String yaml =
                """
                - source_labels: [a, b]
                  regex: 'f(.*);(.*)r'
                  target_label: a
                  replacement: 'b${1}${2}m'
                - source_labels: [c, a]
                  regex: '(b).*b(.*)ba(.*)'
                  target_label: d
                  replacement: '$1$2$2$3'
                """;
        assertThat(relabel(yaml, "a", "foo", "b", "bar", "c", "baz"))
                .isEqualTo(labels("a", "boobam", "b", "bar", "c", "baz", "d", "boooom"));
    }

    @Test
    void replaceWithoutAMatchChangesNothing() {
        assertThat(relabel("- {source_labels: [a], regex: f, target_label: b, replacement: bar}", "a", "boo"))
                .isEqualTo(labels("a", "boo"));
    }

    @Test
    void theRegexIsAnchoredAtBothEnds() {
        assertThat(relabel("- {source_labels: [a], regex: 'f|o', action: drop}", "a", "foo"))
                .isEqualTo(labels("a", "foo"));
        assertThat(relabel("- {source_labels: [a], regex: '.*(b).*', target_label: d}", "a", "abc"))
                .isEqualTo(labels("a", "abc", "d", "b"));
    }

    @Test
    void dotMatchesANewlineAsPrometheusCompilesWithTheSFlag() {
        assertThat(relabel(
                        "- {source_labels: [a], regex: 'line1.*line2', target_label: d, replacement: 'match${1}'}",
                        "a", "line1\nline2"))
                .isEqualTo(labels("a", "line1\nline2", "d", "match"));
    }

    @Test
    void anEmptyReplacementDeletesTheTarget() {
        assertThat(relabel(
                        "- {source_labels: [a], regex: '(f).*', target_label: '$1', replacement: '$2'}",
                        "a",
                        "foo",
                        "f",
                        "baz"))
                .isEqualTo(labels("a", "foo"));
    }

    @Test
    void theTargetLabelIsExpandedAndAnEmptyTargetChangesNothing() {
        assertThat(relabel(
                        "- {source_labels: [a], regex: 'some-([^-]+)-([^,]+)', replacement: '${2}', target_label: '${1}'}",
                        "a", "some-name-value"))
                .isEqualTo(labels("a", "some-name-value", "name", "value"));
        assertThat(relabel(
                        "- {source_labels: [a], regex: 'some-([^-]+)-([^,]+)', replacement: '${1}', target_label: '${3}'}",
                        "a", "some-name-0"))
                .isEqualTo(labels("a", "some-name-0"));
    }

    @Test
    void namedGroupsExpandInBothSpellings() {
        String yaml =
                """
                - {source_labels: [a], regex: '(line1).*(?P<second>line2)', target_label: 'label1_${1}', replacement: 'val_${second}'}
                - {source_labels: [a], regex: '(line1).*(?P<second>line2)', target_label: 'label2_$1', replacement: 'val_$second'}
                """;
        assertThat(relabel(yaml, "a", "line1\nline2"))
                .isEqualTo(labels("a", "line1\nline2", "label1_line1", "val_line2", "label2_line1", "val_line2"));
    }

    @Test
    void expansionFollowsGosExpandForDollarNamesThatRunOn() {
        // $1x is the group named "1x" (none: empty), $$ a dollar, a $ without a name stays
        assertThat(relabel(
                        "- {source_labels: [a], regex: '(.*)', target_label: b, replacement: '$1x|${1}x|$$1|$-|$'}",
                        "a", "v"))
                .isEqualTo(labels("a", "v", "b", "|vx|$1|$-|$"));
    }

    @Test
    void aMissingSourceLabelIsTheEmptyString() {
        assertThat(relabel("- {source_labels: [missing], target_label: t, replacement: fixed}", "a", "1"))
                .isEqualTo(labels("a", "1", "t", "fixed"));
        assertThat(relabel("- {target_label: loadtest, replacement: '1'}", "a", "1"))
                .isEqualTo(labels("a", "1", "loadtest", "1"));
    }

    @Test
    void dropDropsWhenTheRegexMatches() {
        assertThat(relabel("- {source_labels: [a], regex: '.*o.*', action: drop}", "a", "foo", "b", "bar"))
                .isNull();
        assertThat(relabel("- {source_labels: [a], regex: no-match, action: drop}", "a", "foo"))
                .isEqualTo(labels("a", "foo"));
    }

    @Test
    void aDropEndsTheRulesAtOnce() {
        assertThat(relabel(
                        """
                - {source_labels: [a], regex: '.*o.*', action: drop}
                - {source_labels: [a], regex: 'f(.*)', target_label: d, replacement: 'ch$1-ch$1'}
                """,
                        "a",
                        "foo"))
                .isNull();
    }

    @Test
    void keepDropsWhenTheRegexDoesNotMatch() {
        assertThat(relabel("- {source_labels: [a], regex: no-match, action: keep}", "a", "foo"))
                .isNull();
        assertThat(relabel("- {source_labels: [a], regex: 'f.*', action: keep}", "a", "foo"))
                .isEqualTo(labels("a", "foo"));
    }

    @Test
    void keepequalKeepsOnlyWhenTheTargetEqualsTheSources() {
        assertThat(relabel(
                        "- {source_labels: [__tmp_port], action: keepequal, target_label: __port1}",
                        "__tmp_port",
                        "1234",
                        "__port1",
                        "1234",
                        "__port2",
                        "5678"))
                .isEqualTo(labels("__tmp_port", "1234", "__port1", "1234", "__port2", "5678"));
        assertThat(relabel(
                        "- {source_labels: [__tmp_port], action: keepequal, target_label: __port2}",
                        "__tmp_port",
                        "1234",
                        "__port1",
                        "1234",
                        "__port2",
                        "5678"))
                .isNull();
    }

    @Test
    void dropequalDropsWhenTheTargetEqualsTheSources() {
        assertThat(relabel(
                        "- {source_labels: [__tmp_port], action: dropequal, target_label: __port1}",
                        "__tmp_port",
                        "1234",
                        "__port1",
                        "1234",
                        "__port2",
                        "5678"))
                .isNull();
        assertThat(relabel(
                        "- {source_labels: [__tmp_port], action: dropequal, target_label: __port2}",
                        "__tmp_port",
                        "1234",
                        "__port1",
                        "1234",
                        "__port2",
                        "5678"))
                .isEqualTo(labels("__tmp_port", "1234", "__port1", "1234", "__port2", "5678"));
    }

    @Test
    void hashmodIsTheLastEightBytesOfTheMd5ModuloTheModulus() {
        assertThat(relabel(
                        "- {source_labels: [c], target_label: d, action: hashmod, modulus: 1000}",
                        "a",
                        "foo",
                        "b",
                        "bar",
                        "c",
                        "baz"))
                .isEqualTo(labels("a", "foo", "b", "bar", "c", "baz", "d", "976"));
        assertThat(relabel("- {source_labels: [a], target_label: b, action: hashmod, modulus: 1000}", "a", "foo\nbar"))
                .isEqualTo(labels("a", "foo\nbar", "b", "734"));
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
    void labelmapCopiesMatchingLabelsUnderTheExpandedName() {
        assertThat(relabel(
                        "- {regex: '(b.*)', replacement: 'bar_${1}', action: labelmap}",
                        "a", "foo", "b1", "bar", "b2", "baz"))
                .isEqualTo(labels("a", "foo", "b1", "bar", "b2", "baz", "bar_b1", "bar", "bar_b2", "baz"));
        assertThat(relabel(
                        "- {regex: '__meta_(my.*)', replacement: '${1}', action: labelmap}",
                        "a", "foo", "__meta_my_bar", "aaa", "__meta_my_baz", "bbb", "__meta_other", "ccc"))
                .isEqualTo(labels(
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
                        "bbb"));
    }

    @Test
    void labelmapOfTwoLabelsToOneNameKeepsTheLaterInNameOrder() {
        // labels.Builder.Range visits the base labels by name: x_b is set after x_a, and wins
        assertThat(relabel("- {regex: 'x_.*', replacement: 'y', action: labelmap}", "x_b", "2", "x_a", "1"))
                .isEqualTo(labels("x_a", "1", "x_b", "2", "y", "2"));
    }

    @Test
    void labeldropRemovesMatchingNamesAndLabelkeepTheOthers() {
        assertThat(relabel("- {regex: '(b.*)', action: labeldrop}", "a", "foo", "b1", "bar", "b2", "baz"))
                .isEqualTo(labels("a", "foo"));
        assertThat(relabel("- {regex: '(b.*)', action: labelkeep}", "a", "foo", "b1", "bar", "b2", "baz"))
                .isEqualTo(labels("b1", "bar", "b2", "baz"));
    }

    @Test
    void aDroppedLabelCanBeSetAgain() {
        // issue 12283 of Prometheus: labeldrop, then replace the same name, then keep on it
        assertThat(relabel(
                        """
                - {regex: '^__meta_kubernetes_pod_container_port_name$', action: labeldrop}
                - {source_labels: [__meta_kubernetes_pod_annotation_XXX_metrics_port], regex: '(.+)', replacement: metrics,
                   target_label: __meta_kubernetes_pod_container_port_name}
                - {source_labels: [__meta_kubernetes_pod_container_port_name], regex: '^metrics$', action: keep}
                """,
                        "__meta_kubernetes_pod_container_port_name",
                        "foo",
                        "__meta_kubernetes_pod_annotation_XXX_metrics_port",
                        "9091"))
                .isEqualTo(labels(
                        "__meta_kubernetes_pod_annotation_XXX_metrics_port",
                        "9091",
                        "__meta_kubernetes_pod_container_port_name",
                        "metrics"));
    }

    @Test
    void lowercaseAndUppercaseMapEachCharacterAsGoDoes() {
        assertThat(relabel(
                        """
                - {source_labels: [foo], action: uppercase, target_label: foo_uppercase}
                - {source_labels: [foo], action: lowercase, target_label: foo_lowercase}
                """,
                        "foo",
                        "bAr123Foo"))
                .isEqualTo(labels("foo", "bAr123Foo", "foo_lowercase", "bar123foo", "foo_uppercase", "BAR123FOO"));
        // Go's strings.ToUpper keeps ß (no simple upper case); Java's String.toUpperCase would write SS
        assertThat(relabel("- {source_labels: [s], action: uppercase, target_label: u}", "s", "straße"))
                .containsEntry("u", "STRAßE");
    }

    @Test
    void theMetricNameIsALabelLikeAnyOther() {
        assertThat(relabel(
                        "- {source_labels: [__name__], regex: '.*_total$', target_label: __type__, replacement: counter}",
                        "__name__",
                        "http_requests_total"))
                .isEqualTo(labels("__name__", "http_requests_total", "__type__", "counter"));
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
