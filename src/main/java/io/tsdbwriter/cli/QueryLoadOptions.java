package io.tsdbwriter.cli;

import io.tsdbwriter.capacity.reads.QuerySet;
import io.tsdbwriter.capacity.reads.RangeQuery;
import io.tsdbwriter.capacity.reads.ReadLoadSettings;
import io.tsdbwriter.capacity.targets.SearchTarget;
import io.tsdbwriter.write.WriteTarget;
import io.tsdbwriter.write.http.SafeUrl;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Option;

/**
 * The read-load flags of {@code capacity} ({@code --query-rate}, {@code --query-url}, {@code --queries},
 * {@code --query-timeout}, {@code --max-query-p99-latency}), checked and turned into {@link ReadLoadSettings}. A picocli
 * mixin; not thread-safe.
 */
public final class QueryLoadOptions {

    /** A vminsert URL's path: {@code /insert/<accountID>[:<projectID>]/…}. */
    private static final Pattern VMINSERT = Pattern.compile("^/insert/([^/]+)(/.*)?$");

    @Option(
            names = "--query-rate",
            defaultValue = "0",
            paramLabel = "QPS",
            description =
                    "Read load: PromQL range queries per second in each step; 0 = none (default: ${DEFAULT-VALUE})")
    double queryRate;

    @Option(
            names = "--query-url",
            paramLabel = "URL",
            description = "Where the read load goes (default: <vm-url>/api/v1/query_range on a single node)")
    String queryUrl;

    @Option(
            names = "--queries",
            paramLabel = "FILE",
            description = "The read load's queries, one PromQL a line (default: the bundled set)")
    Path queries;

    @Option(
            names = "--query-timeout",
            defaultValue = "30s",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description = "A query without a whole answer after this counts as a timeout (default: ${DEFAULT-VALUE})")
    Duration queryTimeout;

    @Option(
            names = "--max-query-p99-latency",
            defaultValue = "10s",
            converter = Converters.DurationConverter.class,
            paramLabel = "DURATION",
            description =
                    "With --query-rate, a step passes with its queries' p99 at most this (default: ${DEFAULT-VALUE})")
    Duration maxQueryP99;

    /**
     * The read load, or null when {@code --query-rate} is 0.
     *
     * @param vmUrl       the writers' {@code --vm-url}
     * @param remoteWrite whether the writers speak remote write
     * @throws IllegalArgumentException one line naming the bad flag
     * @throws IOException              when {@code --queries} cannot be read
     */
    ReadLoadSettings settings(String vmUrl, boolean remoteWrite) throws IOException {
        return settings(vmUrl, remoteWrite, queryUrl);
    }

    /**
     * As {@link #settings(String, boolean)} with {@code queryUrl} in place of {@code --query-url} (a {@code --target}'s
     * {@code query-url}; null: none given).
     */
    ReadLoadSettings settings(String vmUrl, boolean remoteWrite, String queryUrl) throws IOException {
        if (!(queryRate >= 0) || Double.isInfinite(queryRate) || queryRate > 100_000) {
            throw new IllegalArgumentException("--query-rate must be between 0 and 100000 queries/s, got " + queryRate);
        }
        if (queryTimeout.isZero() || queryTimeout.isNegative() || maxQueryP99.isZero() || maxQueryP99.isNegative()) {
            throw new IllegalArgumentException("--query-timeout and --max-query-p99-latency must be > 0");
        }
        if (queryRate == 0) {
            if (queries != null) {
                throw new IllegalArgumentException("--queries needs --query-rate > 0");
            }
            return null; // a query URL alone is where the read-back pass counts (readBackUrl)
        }
        String url = queryRangeUrl(vmUrl, remoteWrite, queryUrl);
        List<RangeQuery> set = queries == null ? QuerySet.bundled() : QuerySet.read(queries);
        return new ReadLoadSettings(set, queryRate, url, queryTimeout, maxQueryP99);
    }

    /**
     * The query API's base the read-back pass counts on ({@code capacity} without {@code --target}): {@code --query-url}
     * without its {@code /api/v1/query_range} when given, else {@code vmUrl} for the import API, else null.
     *
     * @throws IllegalArgumentException when {@code --query-url} is no http(s) URL (the flag's message)
     */
    String readBackUrl(String vmUrl, boolean remoteWrite) {
        if (queryUrl != null) {
            String base = SearchTarget.queryBase(queryUrl);
            new WriteTarget(SafeUrl.parse(base).url()); // http(s)://host[:port][/path], as --vm-url
            return base;
        }
        return remoteWrite ? null : vmUrl;
    }

    private static String queryRangeUrl(String vmUrl, boolean remoteWrite, String queryUrl) {
        if (queryUrl != null) {
            String u = SafeUrl.parse(queryUrl).url();
            new WriteTarget(SearchTarget.queryBase(u)); // http(s)://host[:port][/path], as --vm-url
            return u.matches(".*/api/v1/query_range/?$")
                    ? queryUrl
                    : queryUrl.replaceFirst("/+$", "") + "/api/v1/query_range";
        }
        if (remoteWrite) {
            throw new IllegalArgumentException(
                    "--query-rate with --output remote-write needs --query-url (the receiver's query_range URL)");
        }
        String base = new WriteTarget(vmUrl).baseUrl();
        Matcher m = VMINSERT.matcher(URI.create(SafeUrl.parse(base).url()).getPath());
        if (m.matches()) {
            throw new IllegalArgumentException(String.format(
                    Locale.ROOT,
                    "--query-rate with a vminsert --vm-url needs --query-url: "
                            + "vmselect's, e.g. http://vmselect:8481/select/%s/prometheus",
                    m.group(1)));
        }
        return vmUrl.replaceFirst("/+$", "") + "/api/v1/query_range";
    }
}
