package io.tsdbwriter.write.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import okhttp3.Credentials;
import okhttp3.HttpUrl;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * Applies an {@link HttpAuthConfig} (and the basic-auth userinfo of the target URLs) to an {@link OkHttpClient.Builder},
 * once per client, so every request of that client carries it: an application interceptor adds the configured
 * headers and the {@code Authorization} header (basic auth from the URL's userinfo for requests to that URL's origin,
 * else {@code --vm-basic-auth-*}, else the bearer token), and TLS gets an {@link SSLSocketFactory} and
 * {@link X509TrustManager} built from the PEM files. Semantics follow vmagent ({@code app/vmagent/remotewrite/client.go},
 * {@code lib/promauth}): password and token files are re-read when they change ({@link SecretFile}: checked at most
 * every second, and at once after a 401, then the request is sent once more when the secret changed); the client
 * certificate and CA are read once at start.
 *
 * <p>Userinfo credentials are matched by origin ({@code scheme://host:port}): the target's {@code /metrics} gets the
 * same credentials as its import path. Thread-safe once built.
 */
public final class HttpClientSecurity {

    private final HttpAuthConfig cfg;
    private final Map<String, String> userinfoByOrigin;
    private final SecretFile passwordFile;
    private final SecretFile tokenFile;
    private final List<String[]> headers;

    private HttpClientSecurity(HttpAuthConfig cfg, Map<String, String> userinfoByOrigin) {
        this.cfg = cfg;
        this.userinfoByOrigin = Map.copyOf(userinfoByOrigin);
        this.passwordFile = cfg.basicAuthPasswordFile() == null
                ? null
                : new SecretFile(cfg.basicAuthPasswordFile(), "--vm-basic-auth-password-file");
        this.tokenFile =
                cfg.bearerTokenFile() == null ? null : new SecretFile(cfg.bearerTokenFile(), "--vm-bearer-token-file");
        List<String[]> h = new ArrayList<>();
        for (String s : cfg.headers()) {
            int colon = s.indexOf(':');
            h.add(new String[] {
                s.substring(0, colon).strip(), s.substring(colon + 1).strip()
            });
        }
        this.headers = List.copyOf(h);
    }

    /**
     * Compiles the settings for a client talking to {@code rawUrls} (which may carry {@code user:pass@} userinfo).
     *
     * @throws IllegalArgumentException when a secret file cannot be read, or a URL carries userinfo while a bearer
     *                                  token file is configured; messages name flags and paths, never secrets
     */
    public static HttpClientSecurity of(HttpAuthConfig cfg, Collection<String> rawUrls) {
        Map<String, String> byOrigin = new HashMap<>();
        for (String raw : rawUrls) {
            SafeUrl u = SafeUrl.parse(raw);
            if (!u.hasCredentials()) {
                continue;
            }
            if (cfg.bearerTokenFile() != null) {
                throw new IllegalArgumentException("URL " + u.url()
                        + " carries user:password while --vm-bearer-token-file is set: give one of them");
            }
            HttpUrl parsed = HttpUrl.parse(u.url());
            if (parsed == null) {
                throw new IllegalArgumentException("invalid URL '" + u.url() + "'");
            }
            byOrigin.put(origin(parsed), Credentials.basic(u.username(), u.password(), StandardCharsets.UTF_8));
        }
        return new HttpClientSecurity(cfg, byOrigin);
    }

    /** Without URL credentials. */
    public static HttpClientSecurity of(HttpAuthConfig cfg) {
        return of(cfg, List.of());
    }

    /** The settings compiled here. */
    public HttpAuthConfig config() {
        return cfg;
    }

    /**
     * Adds the interceptor and, when TLS is customised, the socket factory, trust manager and hostname verifier.
     *
     * @return {@code builder}
     * @throws IllegalArgumentException when a PEM file cannot be read or parsed (names the flag and file)
     */
    public OkHttpClient.Builder configure(OkHttpClient.Builder builder) {
        if (!headers.isEmpty()
                || passwordFile != null
                || tokenFile != null
                || cfg.basicAuthUsername() != null
                || !userinfoByOrigin.isEmpty()) {
            builder.addInterceptor(new AuthInterceptor());
        }
        if (cfg.customTls()) {
            HttpTls.configure(builder, cfg);
        }
        return builder;
    }

    /** The {@code Authorization} value for a request to {@code url}, or null. */
    String authorization(HttpUrl url) {
        String fromUrl = userinfoByOrigin.get(origin(url));
        if (fromUrl != null) {
            return fromUrl;
        }
        if (cfg.basicAuthUsername() != null) {
            return Credentials.basic(
                    cfg.basicAuthUsername(), passwordFile == null ? "" : passwordFile.value(), StandardCharsets.UTF_8);
        }
        if (tokenFile != null) {
            return "Bearer " + tokenFile.value();
        }
        return null;
    }

    private static String origin(HttpUrl u) {
        return u.scheme() + "://" + u.host().toLowerCase(Locale.ROOT) + ":" + u.port();
    }

    private final class AuthInterceptor implements Interceptor {
        @Override
        public Response intercept(Chain chain) throws IOException {
            Request original = chain.request();
            Response response = chain.proceed(decorate(original));
            // a refusal right after a rotation: re-read the secret files and, when they changed, send once more. 400 is
            // in
            // the list because vmauth 1.79 answers an unknown bearer token with 400, which would otherwise be taken for
            // a refused body (split and dead-lettered)
            int code = response.code();
            if ((code == 401 || code == 403 || code == 400) && !userinfoByOrigin.containsKey(origin(original.url()))) {
                boolean changed =
                        (passwordFile != null && passwordFile.reload()) | (tokenFile != null && tokenFile.reload());
                if (changed && (original.body() == null || !original.body().isOneShot())) {
                    response.close();
                    return chain.proceed(decorate(original));
                }
            }
            return response;
        }

        private Request decorate(Request r) {
            Request.Builder b = r.newBuilder();
            for (String[] h : headers) {
                b.header(h[0], h[1]);
            }
            String auth = authorization(r.url());
            if (auth != null) {
                b.header("Authorization", auth);
            }
            return b.build();
        }
    }
}
