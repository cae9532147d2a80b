package io.tsdbwriter.capacity.targets;

import io.tsdbwriter.wire.Output;
import io.tsdbwriter.write.RemoteWriteVersion;
import io.tsdbwriter.write.WriteTarget;
import io.tsdbwriter.write.http.SafeUrl;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One target of {@code capacity --target NAME=URL[,output=import|remote-write][,remote-write-version=1|2][,metrics-url=URL]
 * [,query-url=URL][,tsdb-cpus=LIST][,writer-cpus=LIST]}:
 * a receiver the same search runs against, named so its work directory, topics and report stay apart from the others'.
 *
 * <p>{@code url} is what the writers write to: the import API's base URL (as {@code --vm-url}: {@code http://vm:8428},
 * {@code http://vminsert:8480/insert/0/prometheus}) with {@code output=import} (the default), or the whole remote write URL
 * (as {@code --remote-write-url}: {@code http://prometheus:9090/api/v1/write}) with {@code output=remote-write}.
 * {@code remoteWriteVersion} defaults to 1 and is only taken with remote write; {@code metricsUrl} defaults to the URL's
 * host's {@code /metrics} as {@link WriteTarget#metricsUrl()} derives it. {@code queryUrl} is where {@code --query-rate}'s
 * read load goes (a query_range URL or the prefix {@code /api/v1/query_range} is appended to, as {@code --query-url}):
 * without it an import target's own URL, and a remote write target takes none. The URL carries no comma (percent-encode one as
 * {@code %2C}): commas separate the options.
 *
 * <p>The URLs are kept as given, userinfo included (the writers and the search take their credentials from it); everything
 * shown — {@link #toString()}, {@link #shownUrl()}, every message of {@link #parse} — is without userinfo. Immutable; thread-safe.
 *
 * @param name               the target's name, {@value #NAME_PATTERN} and neither {@code .} nor {@code ..}
 * @param url                the write URL as given (may carry userinfo)
 * @param output             the writers' protocol
 * @param remoteWriteVersion the Remote-Write message with {@link Output#REMOTE_WRITE} ({@link RemoteWriteVersion#V1} with import, unused)
 * @param metricsUrl         the target's {@code /metrics} page read each step (without userinfo when derived)
 * @param queryUrl           the read load's URL as given, or null when not given
 * @param tsdbCpus           {@code tsdb-cpus=LIST}: the CPUs of this target's TSDB when searched side by side
 *                           ({@code --side-by-side}; a cpulist, checked against the machine by the command), or null
 * @param writerCpus         {@code writer-cpus=LIST}: the CPUs of this target's writers side by side, or null
 */
public record SearchTarget(
        String name,
        String url,
        Output output,
        RemoteWriteVersion remoteWriteVersion,
        String metricsUrl,
        String queryUrl,
        String tsdbCpus,
        String writerCpus) {

    /** What a name may hold: it becomes a directory name and a Kafka topic name's part. */
    public static final String NAME_PATTERN = "[A-Za-z0-9_.-]+";

    private static final Pattern NAME = Pattern.compile(NAME_PATTERN);
    private static final String OUTPUT = "output";
    private static final String VERSION = "remote-write-version";
    private static final String METRICS = "metrics-url";
    private static final String QUERY = "query-url";
    private static final String TSDB_CPUS = "tsdb-cpus";
    private static final String WRITER_CPUS = "writer-cpus";
    private static final String KNOWN = "output, remote-write-version, metrics-url, query-url, tsdb-cpus, writer-cpus";

    /**
     * Parses one {@code --target} value.
     *
     * @throws IllegalArgumentException one line naming the value (without userinfo) and what is wrong: no {@code =}, an
     *                                  empty or ill-formed NAME, a missing or invalid URL, an option without {@code =},
     *                                  an unknown or repeated option, a bad output or version, a version with import
     */
    public static SearchTarget parse(String value) {
        String v = value == null ? "" : value.trim();
        int eq = v.indexOf('=');
        if (eq < 0) {
            throw bad(v, "expected NAME=URL[,option…], found no '='");
        }
        String name = v.substring(0, eq);
        if (name.isEmpty()) {
            throw bad(v, "the NAME before '=' is empty");
        }
        if (!NAME.matcher(name).matches() || name.equals(".") || name.equals("..")) {
            throw bad(
                    v,
                    "the NAME '" + SafeUrl.redact(name) + "' must match " + NAME_PATTERN
                            + " (and be neither . nor ..)");
        }
        String[] parts = v.substring(eq + 1).split(",", -1);
        String url = parts[0].trim();
        if (url.isEmpty()) {
            throw bad(v, "no URL after '" + name + "='");
        }
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 1; i < parts.length; i++) {
            String p = parts[i].trim();
            int at = p.indexOf('=');
            if (at <= 0) {
                throw bad(v, "option '" + SafeUrl.redact(p) + "' is not KEY=VALUE (" + KNOWN + ")");
            }
            String key = p.substring(0, at);
            if (!Set.of(OUTPUT, VERSION, METRICS, QUERY, TSDB_CPUS, WRITER_CPUS).contains(key)) {
                throw bad(v, "unknown option '" + SafeUrl.redact(key) + "' (known: " + KNOWN + ")");
            }
            if (options.put(key, p.substring(at + 1).trim()) != null) {
                throw bad(v, "option '" + key + "' is given twice");
            }
        }
        Output output;
        RemoteWriteVersion version;
        try {
            output = options.containsKey(OUTPUT) ? Output.parse(options.get(OUTPUT)) : Output.IMPORT;
        } catch (IllegalArgumentException e) {
            throw bad(v, "output must be import or remote-write, got '" + options.get(OUTPUT) + "'");
        }
        if (output == Output.IMPORT && options.containsKey(VERSION)) {
            throw bad(v, "remote-write-version needs output=remote-write");
        }
        try {
            version = options.containsKey(VERSION)
                    ? RemoteWriteVersion.parse(options.get(VERSION))
                    : RemoteWriteVersion.V1;
        } catch (IllegalArgumentException e) {
            throw bad(v, "remote-write-version must be 1 or 2, got '" + options.get(VERSION) + "'");
        }
        String metrics;
        try {
            WriteTarget target = output == Output.IMPORT ? new WriteTarget(url) : WriteTarget.remoteWrite(url);
            metrics = target.metricsUrl();
        } catch (IllegalArgumentException e) {
            boolean remoteWritePath =
                    output == Output.IMPORT && SafeUrl.redact(url).matches(".*/api/v1/(write|push)/?$");
            throw bad(
                    v,
                    remoteWritePath
                            ? "an import target's URL is the base /api/v1/import is appended to; this one is a remote "
                                    + "write URL: add ,output=remote-write"
                            : e.getMessage());
        }
        if (options.containsKey(METRICS)) {
            metrics = options.get(METRICS);
            try {
                new WriteTarget(metrics); // http(s)://host[:port][/path], as --target-metrics-url is checked
            } catch (IllegalArgumentException e) {
                throw bad(v, "metrics-url: " + e.getMessage());
            }
        }
        String query = options.get(QUERY);
        if (query != null) {
            try {
                new WriteTarget(queryBase(query)); // as --query-url is checked
            } catch (IllegalArgumentException e) {
                throw bad(v, "query-url: " + e.getMessage());
            }
        }
        for (String cpus : List.of(TSDB_CPUS, WRITER_CPUS)) {
            if (options.containsKey(cpus) && !options.get(cpus).matches("[0-9]+(-[0-9]+)?(;[0-9]+(-[0-9]+)?)*")) {
                throw bad(
                        v,
                        cpus
                                + " must be a cpulist with ';' between its parts (the comma separates options): 0-3;6, got '"
                                + options.get(cpus) + "'");
            }
        }
        return new SearchTarget(
                name,
                url,
                output,
                version,
                metrics,
                query,
                cpuList(options.get(TSDB_CPUS)),
                cpuList(options.get(WRITER_CPUS)));
    }

    /** A cpulist option as Linux writes it: {@code 0-3;6} → {@code 0-3,6}; null stays null. */
    private static String cpuList(String option) {
        return option == null ? null : option.replace(';', ',');
    }

    /**
     * Parses every {@code --target} value, in the order given.
     *
     * @throws IllegalArgumentException as {@link #parse}, and when two targets share a NAME
     */
    public static List<SearchTarget> parseAll(List<String> values) {
        List<SearchTarget> targets = new ArrayList<>(values.size());
        Set<String> names = new HashSet<>();
        for (String value : values) {
            SearchTarget t = parse(value);
            if (!names.add(t.name())) {
                throw new IllegalArgumentException(
                        "--target: the NAME '" + t.name() + "' is given twice (each target needs its own)");
            }
            targets.add(t);
        }
        return targets;
    }

    /**
     * The {@code --vm-url} of this target's writers and of the search's probes: the URL itself for import; for remote
     * write its {@code scheme://[userinfo@]host[:port]} (the writers write to {@link #url()}, the probes read that host).
     */
    public String searchUrl() {
        if (output == Output.IMPORT) {
            return url;
        }
        URI u = URI.create(SafeUrl.parse(url).url());
        String userinfo = URI.create(url).getRawUserInfo();
        return u.getScheme() + "://" + (userinfo == null ? "" : userinfo + "@") + u.getRawAuthority();
    }

    /**
     * The writers' protocol flags of this target, as {@code run} takes them: none for import; {@code --output remote-write
     * --remote-write-url URL --remote-write-version V} for remote write.
     */
    public List<String> writerArgs() {
        return output == Output.IMPORT
                ? List.of()
                : List.of(
                        "--output",
                        "remote-write",
                        "--remote-write-url",
                        url,
                        "--remote-write-version",
                        remoteWriteVersion.flag());
    }

    /**
     * The query API's base the search's read-back pass counts on ({@link ReadBack}): {@link #queryUrl()} without its
     * {@code /api/v1/query_range} when given, else an import target's own URL, else null (a remote write receiver's
     * query API is not where it receives: Prometheus' is, Thanos receive serves none).
     */
    public String readBackUrl() {
        return queryUrl != null ? queryBase(queryUrl) : output == Output.IMPORT ? url : null;
    }

    /** A query_range URL ({@code …/api/v1/query_range}) or a base without it → the base, without a trailing {@code /}. */
    public static String queryBase(String queryUrl) {
        return queryUrl.replaceFirst("/api/v1/query_range/?$", "").replaceFirst("/+$", "");
    }

    /** The protocol as the summary names it: {@code import}, {@code remote write 1.0} or {@code remote write 2.0}. */
    public String protocol() {
        return output == Output.IMPORT ? "import" : "remote write " + remoteWriteVersion.flag() + ".0";
    }

    /** {@link #url()} without userinfo. */
    public String shownUrl() {
        return SafeUrl.redact(url);
    }

    /** {@code NAME=URL,output=…} without userinfo. */
    @Override
    public String toString() {
        return name + "=" + shownUrl() + ",output=" + output.flag()
                + (output == Output.IMPORT ? "" : ",remote-write-version=" + remoteWriteVersion.flag())
                + ",metrics-url=" + SafeUrl.redact(metricsUrl)
                + (queryUrl == null ? "" : ",query-url=" + SafeUrl.redact(queryUrl))
                + (tsdbCpus == null ? "" : ",tsdb-cpus=" + tsdbCpus.replace(',', ';'))
                + (writerCpus == null ? "" : ",writer-cpus=" + writerCpus.replace(',', ';'));
    }

    private static IllegalArgumentException bad(String value, String why) {
        return new IllegalArgumentException("--target '" + SafeUrl.redactEach(value) + "': " + why);
    }
}
