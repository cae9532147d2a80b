package io.tsdbwriter.relabel;

import com.google.re2j.Matcher;
import java.util.Map;

/**
 * Expands a {@code replacement} or {@code target_label} template with a regex match as Go's
 * {@code regexp.Regexp.Expand} does (the expansion Prometheus' {@code model/relabel} uses): {@code $$} is a literal
 * {@code $}; {@code $name} takes the longest run of letters, digits and {@code _} as the name, {@code ${name}} the name
 * within braces; a name of decimal digits without a leading zero is a group number, any other a named group; a group
 * that does not exist or did not take part in the match expands to nothing (so {@code $1x} is the group named
 * {@code 1x}: empty); a {@code $} followed by no valid name stays a literal {@code $}.
 *
 * <p>Stateless and thread-safe; allocates (called once per series, never per sample).
 */
final class Template {

    private Template() {}

    /**
     * @param template    the template
     * @param matcher     a matcher that has just matched {@code src}
     * @param namedGroups the pattern's named groups (name to group number)
     * @return the expansion
     */
    static String expand(String template, String src, Matcher matcher, Map<String, Integer> namedGroups) {
        StringBuilder out = new StringBuilder(template.length() + 16);
        int i = 0;
        int n = template.length();
        while (i < n) {
            int dollar = template.indexOf('$', i);
            if (dollar < 0) {
                break;
            }
            out.append(template, i, dollar);
            i = dollar + 1;
            if (i < n && template.charAt(i) == '$') {
                out.append('$');
                i++;
                continue;
            }
            boolean brace = i < n && template.charAt(i) == '{';
            int nameStart = brace ? i + 1 : i;
            int nameEnd = nameStart;
            while (nameEnd < n) {
                int cp = template.codePointAt(nameEnd);
                if (!Character.isLetter(cp) && !Character.isDigit(cp) && cp != '_') {
                    break;
                }
                nameEnd += Character.charCount(cp);
            }
            if (nameEnd == nameStart || (brace && (nameEnd >= n || template.charAt(nameEnd) != '}'))) {
                out.append('$'); // malformed: the $ is text, what follows is read on as text
                continue;
            }
            String name = template.substring(nameStart, nameEnd);
            i = brace ? nameEnd + 1 : nameEnd;
            int group = groupNumber(name);
            if (group < 0) {
                Integer named = namedGroups.get(name);
                group = named == null ? -1 : named;
            }
            if (group >= 0 && group <= matcher.groupCount() && matcher.start(group) >= 0) {
                out.append(src, matcher.start(group), matcher.end(group));
            }
        }
        out.append(template, i, n);
        return out.toString();
    }

    /** The group number a name of ASCII digits spells (no leading zero, below 10^8 as Go reads it), else -1. */
    private static int groupNumber(String name) {
        int num = 0;
        for (int k = 0; k < name.length(); k++) {
            char c = name.charAt(k);
            if (c < '0' || c > '9' || num >= 100_000_000) {
                return -1;
            }
            num = num * 10 + (c - '0');
        }
        if (name.charAt(0) == '0' && name.length() > 1) {
            return -1;
        }
        return num;
    }
}
