package io.tsdbwriter.relabel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

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

    @Test
    void anInvalidRegexNamesTheField() {
        assertThat(error("- {source_labels: [a], regex: '(unclosed', action: keep}"))
                .contains("entry 1", "field regex:", "RE2");
    }

    @Test
    void perlOnlySyntaxIsNoRe2Regex() {
        assertThat(error("- {source_labels: [a], regex: '(?=x)a', action: keep}"))
                .contains("field regex:"); // lookahead: not RE2
        assertThat(error("- {source_labels: [a], regex: '(a)\\1', action: keep}"))
                .contains("field regex:"); // backreference
    }

    @Test
    void hashmodNeedsAModulus() {
        assertThat(error("- {source_labels: [a], target_label: t, action: hashmod}"))
                .contains("entry 1", "field modulus:", "requires non-zero modulus");
        assertThat(error("- {source_labels: [a], target_label: t, action: hashmod, modulus: -3}"))
                .contains("field modulus:");
    }

    @Test
    void writingActionsNeedATargetLabel() {
        for (String action : new String[] {"replace", "hashmod", "lowercase", "uppercase", "keepequal", "dropequal"}) {
            assertThat(error("- {source_labels: [a], action: " + action
                            + ", modulus: 2}".replace(", modulus: 2", action.equals("hashmod") ? ", modulus: 2" : "")))
                    .as(action)
                    .contains("field target_label:", "requires 'target_label' value");
        }
    }

    @Test
    void caseAndEqualActionsTakeNoReplacement() {
        assertThat(error("- {source_labels: [a], target_label: t, action: lowercase, replacement: x}"))
                .contains("field replacement:", "'replacement' can not be set for lowercase action");
    }

    @Test
    void equalActionsTakeOnlySourceLabelsAndTarget() {
        assertThat(error("- {source_labels: [a], target_label: t, action: keepequal, regex: '(.*)'}"))
                .contains("field regex:");
        assertThat(error("- {source_labels: [a], target_label: t, action: dropequal, separator: ','}"))
                .contains("field separator:");
    }

    @Test
    void labeldropAndLabelkeepTakeOnlyARegex() {
        assertThat(error("- {regex: a, action: labeldrop, source_labels: [a]}")).contains("field source_labels:");
        assertThat(error("- {regex: a, action: labelkeep, target_label: t}")).contains("field target_label:");
        assertThat(error("- {regex: a, action: labelkeep, replacement: x}")).contains("field replacement:");
    }

    @Test
    void labelmapNeedsAReplacement() {
        assertThat(error("- {regex: a, action: labelmap, replacement: ''}")).contains("field replacement:");
    }

    @Test
    void anUnknownOrRepeatedFieldIsAnError() {
        assertThat(error("- {target_label: t, replace: x}")).contains("entry 1", "field replace:", "unknown field");
        assertThat(error("- target_label: t\n  target_label: u\n")).contains("field target_label:", "given twice");
    }

    @Test
    void anEmptySourceLabelNameIsInvalid() {
        assertThat(error("- {source_labels: [a, ''], target_label: t}"))
                .contains("field source_labels:", "not a valid label name");
    }

    @Test
    void aFileThatIsNoListSaysSo() {
        assertThat(error("target_label: t"))
                .isEqualTo(
                        "--relabel-config r.yml: must be a YAML list of relabel_config entries (- source_labels: ...)");
        assertThat(error("- just a string")).contains("entry 1", "must be a mapping");
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
