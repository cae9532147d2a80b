package io.tsdbwriter.relabel;

import com.google.re2j.Matcher;
import com.google.re2j.Pattern;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Map;

/**
 * One validated {@code relabel_config} entry and what it does to a label set, as Prometheus 3's
 * {@code model/relabel} does it (https://prometheus.io/docs/prometheus/latest/configuration/configuration/#relabel_config):
 * the values of {@code source_labels} (an absent label is {@code ""}) joined by {@code separator} are matched
 * against {@code regex}, anchored at both ends ({@code ^(?s:regex)$}: {@code .} matches a newline too) in RE2 syntax
 * (re2j); {@code replacement} and, for {@code replace}, {@code target_label} are expanded with the match as Go's
 * {@code Regexp.Expand} does ({@link Template}); label names are valid when non-empty (Prometheus 3's UTF-8 names).
 *
 * <p>Immutable and thread-safe (re2j patterns are; each application makes its own matcher). Built by
 * {@link RelabelRules#parse}, which enforces Prometheus' validation.
 *
 * @param action       what the entry does
 * @param sourceLabels the labels whose values are joined (may be empty)
 * @param separator    put between the joined values (default {@code ;})
 * @param regex        the regex as written (default {@code (.*)}), before anchoring
 * @param modulus      {@code hashmod}'s modulus, an unsigned 64-bit integer (0 when not given)
 * @param targetLabel  the label written or compared ({@code ""} when not given)
 * @param replacement  the template written (default {@code $1})
 * @param pattern      {@code regex} compiled anchored ({@link #compile})
 */
public record RelabelRule(
        RelabelAction action,
        List<String> sourceLabels,
        String separator,
        String regex,
        long modulus,
        String targetLabel,
        String replacement,
        Pattern pattern) {

    /** {@code regex}'s default: the whole value, as group 1. */
    public static final String DEFAULT_REGEX = "(.*)";
    /** {@code separator}'s default. */
    public static final String DEFAULT_SEPARATOR = ";";
    /** {@code replacement}'s default: group 1. */
    public static final String DEFAULT_REPLACEMENT = "$1";

    /** Copies {@code sourceLabels}. */
    public RelabelRule {
        sourceLabels = List.copyOf(sourceLabels);
    }

    /**
     * Compiles a relabel regex as Prometheus does: {@code ^(?s:regex)$}, in RE2 syntax.
     *
     * @throws com.google.re2j.PatternSyntaxException when it is not an RE2 regex
     */
    public static Pattern compile(String regex) {
        return Pattern.compile("^(?s:" + regex + ")$");
    }

    /**
     * Applies this entry to {@code lb}.
     *
     * @return false when the entry drops the series
     */
    boolean apply(LabelBuilder lb) {
        String val = joinedSources(lb);
        switch (action) {
            case DROP:
                return !pattern.matcher(val).find();
            case KEEP:
                return pattern.matcher(val).find();
            case DROPEQUAL:
                return !lb.get(targetLabel).equals(val);
            case KEEPEQUAL:
                return lb.get(targetLabel).equals(val);
            case REPLACE:
                replace(lb, val);
                return true;
            case LOWERCASE:
                lb.set(targetLabel, mapCase(val, false));
                return true;
            case UPPERCASE:
                lb.set(targetLabel, mapCase(val, true));
                return true;
            case HASHMOD:
                lb.set(targetLabel, Long.toUnsignedString(Long.remainderUnsigned(md5Tail(val), modulus)));
                return true;
            case LABELMAP:
                String[][] now = lb.snapshot();
                Map<String, Integer> named = pattern.namedGroups();
                for (int i = 0; i < now[0].length; i++) {
                    Matcher m = pattern.matcher(now[0][i]);
                    if (m.find()) {
                        lb.set(Template.expand(replacement, now[0][i], m, named), now[1][i]);
                    }
                }
                return true;
            case LABELDROP:
            case LABELKEEP:
                String[][] labels = lb.snapshot();
                for (String name : labels[0]) {
                    if (pattern.matcher(name).find() == (action == RelabelAction.LABELDROP)) {
                        lb.delete(name);
                    }
                }
                return true;
            default:
                throw new IllegalStateException("unknown relabel action " + action);
        }
    }

    private String joinedSources(LabelBuilder lb) {
        if (sourceLabels.isEmpty()) {
            return "";
        }
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < sourceLabels.size(); i++) {
            if (i > 0) {
                b.append(separator);
            }
            b.append(lb.get(sourceLabels.get(i)));
        }
        return b.toString();
    }

    /** {@code replace}: no match, or a target that expands to an empty name, changes nothing; an empty value deletes. */
    private void replace(LabelBuilder lb, String val) {
        Matcher m = pattern.matcher(val);
        if (!m.find()) {
            return;
        }
        Map<String, Integer> named = pattern.namedGroups();
        String target = Template.expand(targetLabel, val, m, named);
        if (target.isEmpty()) {
            return;
        }
        lb.set(target, Template.expand(replacement, val, m, named));
    }

    /** Go's strings.ToLower / ToUpper: each code point's simple case mapping (so {@code ß} stays, unlike Java's). */
    private static String mapCase(String s, boolean upper) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); ) {
            int cp = s.codePointAt(i);
            b.appendCodePoint(upper ? Character.toUpperCase(cp) : Character.toLowerCase(cp));
            i += Character.charCount(cp);
        }
        return b.toString();
    }

    /** The last 8 bytes of the MD5 of {@code s}'s UTF-8 bytes, big-endian: Prometheus' hashmod hash. */
    static long md5Tail(String s) {
        byte[] d;
        try {
            d = MessageDigest.getInstance("MD5").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has MD5", e);
        }
        long h = 0;
        for (int i = 8; i < 16; i++) {
            h = h << 8 | (d[i] & 0xFF);
        }
        return h;
    }
}
