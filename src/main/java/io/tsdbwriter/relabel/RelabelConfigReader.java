package io.tsdbwriter.relabel;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads a relabel config's YAML (through Jackson's YAML parser, token by token, so a scalar is read as written) into
 * validated {@link RelabelRule}s, with Prometheus 3's defaults and checks ({@code model/relabel}'s
 * {@code Config.UnmarshalYAML} and {@code Validate}, label names validated as UTF-8 names: non-empty):
 * <ul>
 *   <li>defaults: {@code action: replace}, {@code separator: ;}, {@code regex: (.*)}, {@code replacement: $1};
 *       a field given as null ({@code regex:}) is its empty value ({@code regex} then matches only {@code ""}), as
 *       Go's YAML decoder leaves it;</li>
 *   <li>fields: {@code source_labels} (a list), {@code separator}, {@code regex}, {@code modulus} (an unsigned 64-bit
 *       integer), {@code target_label}, {@code replacement}, {@code action}; any other, or one given twice, is an
 *       error (Prometheus reads strictly);</li>
 *   <li>{@code hashmod} needs a modulus; {@code replace}, {@code hashmod}, {@code lowercase}, {@code uppercase},
 *       {@code keepequal}, {@code dropequal} need a {@code target_label}; {@code lowercase}, {@code uppercase},
 *       {@code keepequal}, {@code dropequal} take no {@code replacement}; {@code keepequal} and {@code dropequal} take
 *       only {@code source_labels} and {@code target_label}; {@code labeldrop} and {@code labelkeep} take only
 *       {@code regex}; {@code labelmap}'s replacement must not be empty.</li>
 * </ul>
 * Every error is one line: {@code <prefix>: entry <i> (line <l>), field <name>: <reason>} (i 1-based), or
 * {@code <prefix>: <reason>} when the file is not a YAML list, or {@code <prefix>: not valid YAML at line <l>: ...}.
 */
final class RelabelConfigReader {

    private static final YAMLFactory YAML = new YAMLFactory();
    private static final Set<String> FIELDS =
            Set.of("source_labels", "separator", "regex", "modulus", "target_label", "replacement", "action");

    private RelabelConfigReader() {}

    /** @throws IllegalArgumentException one line, see the class comment */
    static List<RelabelRule> read(String yaml, String prefix) {
        List<RelabelRule> rules = new ArrayList<>();
        int index = 0;
        int line = 1;
        try (JsonParser p = YAML.createParser(yaml)) {
            JsonToken t = p.nextToken();
            if (t == null || t == JsonToken.VALUE_NULL) {
                return rules; // an empty document: no entry
            }
            if (t != JsonToken.START_ARRAY) {
                throw new IllegalArgumentException(
                        prefix + ": must be a YAML list of relabel_config entries (- source_labels: ...)");
            }
            while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
                index++;
                line = p.currentTokenLocation().getLineNr();
                if (t != JsonToken.START_OBJECT) {
                    throw new Invalid(null, "must be a mapping of relabel_config fields, got " + p.getText());
                }
                Entry e = new Entry();
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String field = p.currentName();
                    if (!FIELDS.contains(field)) {
                        throw new Invalid(
                                field,
                                "unknown field (a relabel_config has "
                                        + String.join(
                                                ", ",
                                                List.of(
                                                        "source_labels",
                                                        "separator",
                                                        "regex",
                                                        "modulus",
                                                        "target_label",
                                                        "replacement",
                                                        "action"))
                                        + ")");
                    }
                    if (e.has(field)) {
                        throw new Invalid(field, "given twice");
                    }
                    JsonToken v = p.nextToken();
                    e.given.put(field, field.equals("source_labels") ? sourceLabels(p, v) : scalar(p, v, field));
                }
                rules.add(e.rule());
            }
            return rules;
        } catch (Invalid e) {
            throw new IllegalArgumentException(prefix + ": entry " + index + " (line " + line + ")"
                    + (e.field == null ? "" : ", field " + e.field) + ": " + e.getMessage());
        } catch (IOException e) {
            String at = "";
            String why = String.valueOf(e.getMessage());
            if (e instanceof JsonProcessingException j) {
                at = j.getLocation() == null
                        ? ""
                        : " at line " + j.getLocation().getLineNr();
                why = String.valueOf(j.getOriginalMessage());
            }
            throw new IllegalArgumentException(
                    prefix + ": not valid YAML" + at + ": "
                            + why.lines().findFirst().orElse(""),
                    e);
        }
    }

    /** A scalar's text as written; null for a YAML null. */
    private static String scalar(JsonParser p, JsonToken v, String field) throws IOException {
        if (v == JsonToken.VALUE_NULL) {
            return null;
        }
        if (!v.isScalarValue()) {
            throw new Invalid(field, "must be a single value, not a list or mapping");
        }
        return p.getText();
    }

    private static List<String> sourceLabels(JsonParser p, JsonToken v) throws IOException {
        if (v == JsonToken.VALUE_NULL) {
            return null;
        }
        if (v != JsonToken.START_ARRAY) {
            throw new Invalid("source_labels", "must be a list of label names ([a, b])");
        }
        List<String> names = new ArrayList<>();
        JsonToken t;
        while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
            String name = scalar(p, t, "source_labels");
            if (name == null || name.isEmpty()) {
                throw new Invalid("source_labels", "\"" + (name == null ? "" : name) + "\" is not a valid label name");
            }
            names.add(name);
        }
        return names;
    }

    /** An invalid field of the entry being read (null: the entry as a whole). */
    private static final class Invalid extends IOException {
        final String field;

        Invalid(String field, String message) {
            super(message);
            this.field = field;
        }
    }

    /**
     * One entry's fields as read: a field given is a key of {@link #given} (its value null where the YAML gave null, a
     * {@code String} for a scalar, a {@code List<String>} for {@code source_labels}), a field absent is no key; defaults
     * and checks in {@link #rule()}.
     */
    private static final class Entry {
        final Map<String, Object> given = new HashMap<>();

        boolean has(String field) {
            return given.containsKey(field);
        }

        /** The scalar as given (a YAML null as {@code ""}), or {@code absent} when the field is not given. */
        String value(String field, String absent) {
            return has(field) ? nullToEmpty((String) given.get(field)) : absent;
        }

        RelabelRule rule() throws Invalid {
            RelabelAction a = RelabelAction.REPLACE;
            if (has("action")) {
                String action = value("action", null);
                if (action.isEmpty()) {
                    throw new Invalid("action", "relabel action cannot be empty");
                }
                a = RelabelAction.parse(action);
                if (a == null) {
                    throw new Invalid(
                            "action",
                            "unknown relabel action \"" + action + "\" (replace, keep, drop, keepequal, "
                                    + "dropequal, hashmod, labelmap, labeldrop, labelkeep, lowercase, uppercase)");
                }
            }
            String sep = value("separator", RelabelRule.DEFAULT_SEPARATOR);
            String re = value("regex", RelabelRule.DEFAULT_REGEX);
            String repl = value("replacement", RelabelRule.DEFAULT_REPLACEMENT);
            String target = value("target_label", "");
            @SuppressWarnings("unchecked")
            List<String> sourceLabels = (List<String>) given.get("source_labels");
            String modulus = (String) given.get("modulus");
            long mod = 0;
            if (modulus != null) {
                try {
                    mod = Long.parseUnsignedLong(modulus.trim());
                } catch (NumberFormatException e) {
                    throw new Invalid("modulus", "\"" + modulus + "\" is not an unsigned 64-bit integer");
                }
            }
            Pattern pattern;
            try {
                pattern = RelabelRule.compile(re);
            } catch (PatternSyntaxException e) {
                throw new Invalid(
                        "regex",
                        "\"" + re + "\" is not an RE2 regular expression: "
                                + e.getMessage().lines().findFirst().orElse(""));
            }
            if (a == RelabelAction.HASHMOD && mod == 0) {
                throw new Invalid("modulus", "relabel configuration for hashmod requires non-zero modulus");
            }
            if (a.needsTarget() && target.isEmpty()) {
                throw new Invalid(
                        "target_label",
                        "relabel configuration for " + a.yamlName() + " action requires 'target_label' value");
            }
            boolean equalOrCase = a == RelabelAction.LOWERCASE
                    || a == RelabelAction.UPPERCASE
                    || a == RelabelAction.KEEPEQUAL
                    || a == RelabelAction.DROPEQUAL;
            if (equalOrCase && !repl.equals(RelabelRule.DEFAULT_REPLACEMENT)) {
                throw new Invalid("replacement", "'replacement' can not be set for " + a.yamlName() + " action");
            }
            if (a == RelabelAction.LABELMAP && repl.isEmpty()) {
                throw new Invalid("replacement", "\"\" is invalid 'replacement' for labelmap action");
            }
            if (a == RelabelAction.KEEPEQUAL || a == RelabelAction.DROPEQUAL) {
                String only =
                        a.yamlName() + " action requires only 'source_labels' and `target_label`, and no other fields";
                if (has("regex")) {
                    throw new Invalid("regex", only);
                }
                if (mod != 0) {
                    throw new Invalid("modulus", only);
                }
                if (!sep.equals(RelabelRule.DEFAULT_SEPARATOR)) {
                    throw new Invalid("separator", only);
                }
            }
            if (a == RelabelAction.LABELDROP || a == RelabelAction.LABELKEEP) {
                String only = a.yamlName() + " action requires only 'regex', and no other fields";
                if (sourceLabels != null) {
                    throw new Invalid("source_labels", only);
                }
                if (!target.isEmpty()) {
                    throw new Invalid("target_label", only);
                }
                if (mod != 0) {
                    throw new Invalid("modulus", only);
                }
                if (!sep.equals(RelabelRule.DEFAULT_SEPARATOR)) {
                    throw new Invalid("separator", only);
                }
                if (!repl.equals(RelabelRule.DEFAULT_REPLACEMENT)) {
                    throw new Invalid("replacement", only);
                }
            }
            return new RelabelRule(
                    a, sourceLabels == null ? List.of() : sourceLabels, sep, re, mod, target, repl, pattern);
        }

        private static String nullToEmpty(String s) {
            return s == null ? "" : s;
        }
    }
}
