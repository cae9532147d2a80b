package io.tsdbwriter.capacity.targets;

/**
 * Escaping for the capacity command's HTML pages: each target's own report ({@code capacity.search.CapacityPage}) and
 * the targets side by side ({@link ComparisonPage}). It lives here, below {@code capacity.search}, so both pages use the
 * one helper without an arrow from {@code capacity.targets} up to the search. Stateless; thread-safe.
 */
public final class Html {

    private Html() {}

    /**
     * {@code text} fit for HTML text and attribute values: {@code & < > " '} as character references; null as empty.
     */
    public static String escape(String text) {
        if (text == null) {
            return "";
        }
        StringBuilder b = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }
}
