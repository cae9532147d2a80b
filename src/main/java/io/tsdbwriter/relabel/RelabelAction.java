package io.tsdbwriter.relabel;

import java.util.Locale;

/**
 * The {@code action} of a Prometheus {@code relabel_config} entry
 * (https://prometheus.io/docs/prometheus/latest/configuration/configuration/#relabel_config; Prometheus 3's
 * {@code model/relabel}): its YAML name is the lower-case constant name, read case-insensitively as Prometheus does.
 */
public enum RelabelAction {
    /** Sets {@code target_label} to {@code replacement} expanded with the regex's groups, when the regex matches. */
    REPLACE,
    /** Drops the series when the regex does not match the joined source values. */
    KEEP,
    /** Drops the series when the regex matches the joined source values. */
    DROP,
    /** Drops the series when {@code target_label}'s value differs from the joined source values. */
    KEEPEQUAL,
    /** Drops the series when {@code target_label}'s value equals the joined source values. */
    DROPEQUAL,
    /** Sets {@code target_label} to the MD5 of the joined source values modulo {@code modulus}. */
    HASHMOD,
    /** Copies every label whose name the regex matches to the name {@code replacement} expands to. */
    LABELMAP,
    /** Removes every label whose name the regex matches. */
    LABELDROP,
    /** Removes every label whose name the regex does not match. */
    LABELKEEP,
    /** Sets {@code target_label} to the joined source values in lower case. */
    LOWERCASE,
    /** Sets {@code target_label} to the joined source values in upper case. */
    UPPERCASE;

    /** The name as YAML spells it ({@code labelmap}). */
    public String yamlName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The action a YAML value names, case-insensitively ({@code Replace} is {@link #REPLACE}).
     *
     * @return null when it names none
     */
    static RelabelAction parse(String s) {
        for (RelabelAction a : values()) {
            if (a.yamlName().equals(s.toLowerCase(Locale.ROOT))) {
                return a;
            }
        }
        return null;
    }

    /** Whether the action writes or compares {@code target_label}, so that it needs one. */
    boolean needsTarget() {
        return switch (this) {
            case REPLACE, HASHMOD, LOWERCASE, UPPERCASE, KEEPEQUAL, DROPEQUAL -> true;
            default -> false;
        };
    }
}
