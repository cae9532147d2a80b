package io.tsdbwriter.write.http;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A URL split into what may be shown and the credentials it carried: {@code http://user:pass@host:8428/x} becomes
 * {@link #url()} {@code http://host:8428/x} plus {@link #username()} / {@link #password()} (percent-decoded). Use
 * {@link #redact(String)} wherever a URL given by a user is printed.
 *
 * <p>Immutable; thread-safe. {@link #toString()} is the URL without userinfo.
 *
 * @param url      the URL without userinfo
 * @param username the userinfo's user, or null when the URL had none
 * @param password the userinfo's password (empty when only a user was given), or null when the URL had no userinfo
 */
public record SafeUrl(String url, String username, String password) {

    /**
     * Splits {@code raw}.
     *
     * @throws IllegalArgumentException when it is not a URI; the message never contains the userinfo
     */
    public static SafeUrl parse(String raw) {
        String s = raw.trim();
        URI uri;
        try {
            uri = new URI(s);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("invalid URL '" + redact(s) + "'");
        }
        String rawUserInfo = uri.getRawUserInfo();
        if (rawUserInfo == null) {
            return new SafeUrl(s, null, null);
        }
        int colon = rawUserInfo.indexOf(':');
        String user = decode(colon < 0 ? rawUserInfo : rawUserInfo.substring(0, colon));
        String pass = colon < 0 ? "" : decode(rawUserInfo.substring(colon + 1));
        return new SafeUrl(strip(s), user, pass);
    }

    /** True when the URL carried userinfo. */
    public boolean hasCredentials() {
        return username != null;
    }

    /**
     * {@code raw} with any userinfo removed ({@code scheme://user:pass@host} → {@code scheme://host}, and
     * {@code user:pass@host:8428} without a scheme → {@code host:8428}); never throws.
     */
    public static String redact(String raw) {
        return raw == null ? null : strip(raw);
    }

    /**
     * A command line fit to print: URLs without userinfo (every one of a comma-separated list), and the values of {@code --kafka-property},
     * {@code --consumer-property} and {@code --vm-header} (which may hold secrets) replaced by {@code KEY=***}. The
     * values of {@code --writer-arg} (the writers' own arguments, {@code --writer-arg=ARG} or {@code --writer-arg ARG})
     * are redacted as a command line of their own, so a secret handed to the writers is hidden too.
     */
    public static List<String> redactArgs(List<String> args) {
        List<String> writerArgs = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.startsWith(WRITER_ARG + "=")) {
                writerArgs.add(a.substring(WRITER_ARG.length() + 1));
            } else if (a.equals(WRITER_ARG) && i + 1 < args.size()) {
                writerArgs.add(args.get(++i));
            }
        }
        if (writerArgs.isEmpty()) {
            return redactPlain(args);
        }
        List<String> hidden = redactPlain(writerArgs);
        List<String> others = new ArrayList<>();
        for (int i = 0; i < args.size(); i++) {
            if (args.get(i).equals(WRITER_ARG) && i + 1 < args.size()) {
                i++;
            } else if (!args.get(i).startsWith(WRITER_ARG + "=")) {
                others.add(args.get(i));
            }
        }
        List<String> plain = redactPlain(others);
        List<String> out = new ArrayList<>(args.size());
        int w = 0;
        int o = 0;
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.startsWith(WRITER_ARG + "=")) {
                out.add(WRITER_ARG + "=" + hidden.get(w++));
            } else if (a.equals(WRITER_ARG) && i + 1 < args.size()) {
                out.add(WRITER_ARG);
                out.add(hidden.get(w++));
                i++;
            } else {
                out.add(plain.get(o++));
            }
        }
        return out;
    }

    private static final String WRITER_ARG = "--writer-arg";

    private static List<String> redactPlain(List<String> args) {
        List<String> out = new ArrayList<>(args.size());
        boolean hideNext = false;
        for (String a : args) {
            String flag = a.contains("=") && a.startsWith("--") ? a.substring(0, a.indexOf('=')) : null;
            if (hideNext) {
                out.add(hideValue(a));
                hideNext = false;
            } else if (SECRET_VALUE_FLAGS.contains(a)) {
                out.add(a);
                hideNext = true;
            } else if (flag != null && SECRET_VALUE_FLAGS.contains(flag)) {
                out.add(flag + "=" + hideValue(a.substring(flag.length() + 1)));
            } else {
                out.add(redactEach(a));
            }
        }
        return out;
    }

    private static final Set<String> SECRET_VALUE_FLAGS =
            Set.of("--kafka-property", "--consumer-property", "--vm-header");

    /**
     * {@link #redact} of every comma-separated part: a list of URLs ({@code --vm-url a,b}) or a URL with options after it
     * ({@code capacity --target NAME=URL,metrics-url=URL}); null stays null.
     */
    public static String redactEach(String arg) {
        if (arg == null) {
            return null;
        }
        List<String> parts = new ArrayList<>();
        for (String p : arg.split(",", -1)) {
            parts.add(strip(p));
        }
        return String.join(",", parts);
    }

    private static String hideValue(String kv) {
        int sep = kv.indexOf('=');
        int colon = kv.indexOf(':');
        int at = sep < 0 ? colon : colon < 0 ? sep : Math.min(sep, colon);
        return at < 0 ? "***" : kv.substring(0, at + 1) + "***";
    }

    private static String strip(String s) {
        int scheme = s.indexOf("://");
        int start = scheme < 0 ? 0 : scheme + 3; // without a scheme (user:pass@host:8428) the user info is cut too
        int end = s.length();
        for (int i = start; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '/' || c == '?' || c == '#') {
                end = i;
                break;
            }
        }
        int at = s.lastIndexOf('@', end - 1);
        if (at < start) {
            return s;
        }
        return s.substring(0, start) + s.substring(at + 1);
    }

    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return url;
    }
}
