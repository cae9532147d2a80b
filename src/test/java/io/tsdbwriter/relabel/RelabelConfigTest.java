package io.tsdbwriter.relabel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The config's defaults and Prometheus' validation ({@code Config.Validate}): each error one line naming entry and field. */
class RelabelConfigTest {

    private static String error(String yaml) {
        try {
            RelabelRules.parse(yaml, "r.yml");
        } catch (IllegalArgumentException e) {
            assertThat(e.getMessage()).doesNotContain("\n");
            return e.getMessage();
        }
        throw new AssertionError("accepted: " + yaml);
    }

    @Test
    void defaultsAreReplaceSemicolonWholeValueAndGroupOne() {
        RelabelRule r =
                RelabelRules.parse("- {target_label: t}", "r.yml").rules().get(0);
        assertThat(r.action()).isEqualTo(RelabelAction.REPLACE);
        assertThat(r.separator()).isEqualTo(";");
        assertThat(r.regex()).isEqualTo("(.*)");
        assertThat(r.replacement()).isEqualTo("$1");
        assertThat(r.sourceLabels()).isEmpty();
        assertThat(r.modulus()).isZero();
    }

    @Test
    void aNullFieldIsItsEmptyValueAsGosYamlLeavesIt() {
        RelabelRule r = RelabelRules.parse("- {target_label: t, regex: , separator: , replacement: x}", "r.yml")
                .rules()
                .get(0);
        assertThat(r.regex()).isEmpty();
        assertThat(r.separator()).isEmpty();
        assertThat(RelabelRulesTest.relabel(
                        "- {source_labels: [a], target_label: t, regex: , replacement: x}", "a", "1"))
                .doesNotContainKey("t"); // the regex "" matches only the empty value
    }

    @Test
    void actionsAreReadCaseInsensitively() {
        assertThat(RelabelRules.parse("- {action: LabelDrop, regex: x}", "r.yml")
                        .rules()
                        .get(0)
                        .action())
                .isEqualTo(RelabelAction.LABELDROP);
    }

    @Test
    void aScalarIsReadAsWritten() {
        assertThat(RelabelRules.parse("- {target_label: t, regex: 1e3, replacement: 010}", "r.yml")
                        .rules()
                        .get(0))
                .extracting(RelabelRule::regex, RelabelRule::replacement)
                .containsExactly("1e3", "010");
    }

    @Test
    void anUnknownActionNamesEntryAndField() {
        assertThat(error("- {target_label: t}\n- {action: rename, target_label: t}"))
                .startsWith(
                        "--relabel-config r.yml: entry 2 (line 2), field action: unknown relabel action \"rename\"");
    }

    private static Arguments refused(String name, String yaml, String... fragments) {
        return arguments(name, yaml, List.of(fragments));
    }

    /** A config → what its one-line error names (each fragment is contained in it). */
    static Stream<Arguments> refused() {
        return Stream.of(
                refused(
                        "an invalid regex names the field",
                        "- {source_labels: [a], regex: '(unclosed', action: keep}",
                        "entry 1",
                        "field regex:",
                        "RE2"),
                refused(
                        "lookahead: no RE2 regex",
                        "- {source_labels: [a], regex: '(?=x)a', action: keep}",
                        "field regex:"),
                refused(
                        "backreference: no RE2 regex",
                        "- {source_labels: [a], regex: '(a)\\1', action: keep}",
                        "field regex:"),
                refused(
                        "hashmod needs a modulus",
                        "- {source_labels: [a], target_label: t, action: hashmod}",
                        "entry 1",
                        "field modulus:",
                        "requires non-zero modulus"),
                refused(
                        "hashmod needs a positive modulus",
                        "- {source_labels: [a], target_label: t, action: hashmod, modulus: -3}",
                        "field modulus:"),
                refused(
                        "case actions take no replacement",
                        "- {source_labels: [a], target_label: t, action: lowercase, replacement: x}",
                        "field replacement:",
                        "'replacement' can not be set for lowercase action"),
                refused(
                        "keepequal takes no regex",
                        "- {source_labels: [a], target_label: t, action: keepequal, regex: '(.*)'}",
                        "field regex:"),
                refused(
                        "dropequal takes no separator",
                        "- {source_labels: [a], target_label: t, action: dropequal, separator: ','}",
                        "field separator:"),
                refused(
                        "labeldrop takes no source_labels",
                        "- {regex: a, action: labeldrop, source_labels: [a]}",
                        "field source_labels:"),
                refused(
                        "labelkeep takes no target_label",
                        "- {regex: a, action: labelkeep, target_label: t}",
                        "field target_label:"),
                refused(
                        "labelkeep takes no replacement",
                        "- {regex: a, action: labelkeep, replacement: x}",
                        "field replacement:"),
                refused(
                        "labelmap needs a replacement",
                        "- {regex: a, action: labelmap, replacement: ''}",
                        "field replacement:"),
                refused(
                        "an unknown field",
                        "- {target_label: t, replace: x}",
                        "entry 1",
                        "field replace:",
                        "unknown field"),
                refused(
                        "a repeated field",
                        "- target_label: t\n  target_label: u\n",
                        "field target_label:",
                        "given twice"),
                refused(
                        "an empty source label name",
                        "- {source_labels: [a, ''], target_label: t}",
                        "field source_labels:",
                        "not a valid label name"),
                refused("an entry that is no mapping", "- just a string", "entry 1", "must be a mapping"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource
    void refused(String name, String yaml, List<String> fragments) {
        assertThat(error(yaml)).contains(fragments);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"replace", "hashmod", "lowercase", "uppercase", "keepequal", "dropequal"})
    void writingActionsNeedATargetLabel(String action) {
        String modulus = action.equals("hashmod") ? ", modulus: 2" : "";
        assertThat(error("- {source_labels: [a], action: " + action + modulus + "}"))
                .as(action)
                .contains("field target_label:", "requires 'target_label' value");
    }

    @Test
    void aFileThatIsNoListSaysSo() {
        assertThat(error("target_label: t"))
                .isEqualTo(
                        "--relabel-config r.yml: must be a YAML list of relabel_config entries (- source_labels: ...)");
        assertThat(error("- {target_label: \"unclosed"))
                .startsWith("--relabel-config r.yml: not valid YAML at line 1: ");
    }

    @Test
    void anUnreadableFileNamesIt() {
        assertThatThrownBy(() -> RelabelRules.load(Path.of("/nonexistent/relabel.yml")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--relabel-config /nonexistent/relabel.yml: cannot be read");
    }
}
