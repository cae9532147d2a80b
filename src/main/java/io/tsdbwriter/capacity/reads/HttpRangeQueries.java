package io.tsdbwriter.capacity.reads;

import io.tsdbwriter.write.http.SafeUrl;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.time.Duration;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okio.BufferedSource;
import okio.Okio;

/**
 * Sends the read load's range queries to a Prometheus-compatible {@code query_range} endpoint (VictoriaMetrics
 * single-node {@code /api/v1/query_range}, vmselect {@code /select/<accountID>/prometheus/api/v1/query_range}) with
 * OkHttp: GET with {@code query}, {@code start}, {@code end} and {@code step} in seconds. OK is HTTP 200 with
 * {@code "status":"success"}; no answer within the query timeout (the call's timeout, the whole body read included)
 * is a timeout; anything else is an error. Thread-safe (OkHttp is).
 */
public final class HttpRangeQueries implements QueryLoad.QueryCall {

    /** The answer's first bytes, where its status is. */
    private static final long HEAD_BYTES = 256;

    private final OkHttpClient http;
    private final HttpUrl url;

    /**
     * @param http         a client to derive from (its authentication and TLS apply)
     * @param queryRangeUrl the whole {@code …/api/v1/query_range} URL
     * @param timeout      the query timeout
     * @throws IllegalArgumentException when the URL is not http(s)
     */
    public HttpRangeQueries(OkHttpClient http, String queryRangeUrl, Duration timeout) {
        // a user:password@ reaches the requests through the client's security (HttpClientSecurity), never the URL
        HttpUrl u = HttpUrl.parse(SafeUrl.parse(queryRangeUrl).url());
        if (u == null) {
            throw new IllegalArgumentException("invalid query URL '" + SafeUrl.redact(queryRangeUrl) + "'");
        }
        this.url = u;
        // as many queries in flight as the schedule starts: OkHttp's dispatcher is not used (execute()), the pool may
        // grow
        this.http = http.newBuilder()
                .callTimeout(timeout)
                .readTimeout(timeout)
                .retryOnConnectionFailure(false)
                .build();
    }

    @Override
    public QueryLoad.Outcome call(RangeQuery q, long endMs) {
        long end = endMs / 1000;
        HttpUrl u = url.newBuilder()
                .addQueryParameter("query", q.promql())
                .addQueryParameter("start", Long.toString(end - q.range().toSeconds()))
                .addQueryParameter("end", Long.toString(end))
                .addQueryParameter("step", q.step().toSeconds() + "s")
                .build();
        try (Response resp =
                http.newCall(new Request.Builder().url(u).get().build()).execute()) {
            if (resp.body() == null) {
                return QueryLoad.Outcome.ERROR;
            }
            // the status leads the answer ({"status":"success","data":…}); the rest is read to its end, unkept: the
            // whole answer counts in the latency, and a 24 h answer of many series need not become a string
            BufferedSource body = resp.body().source();
            body.request(HEAD_BYTES);
            String head = body.getBuffer()
                    .snapshot((int) Math.min(HEAD_BYTES, body.getBuffer().size()))
                    .utf8();
            body.readAll(Okio.blackhole());
            return resp.code() == 200 && head.contains("\"status\":\"success\"")
                    ? QueryLoad.Outcome.OK
                    : QueryLoad.Outcome.ERROR;
        } catch (InterruptedIOException e) {
            return QueryLoad.Outcome.TIMEOUT; // OkHttp's call timeout
        } catch (IOException | RuntimeException e) {
            return QueryLoad.Outcome.ERROR;
        }
    }
}
