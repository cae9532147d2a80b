package io.tsdbwriter.write.http;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import okhttp3.Credentials;
import okhttp3.HttpUrl;
import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.internal.tls.OkHostnameVerifier;

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
        this.passwordFile = cfg.basicAuthPasswordFile() == null ? null
                : new SecretFile(cfg.basicAuthPasswordFile(), "--vm-basic-auth-password-file");
        this.tokenFile = cfg.bearerTokenFile() == null ? null : new SecretFile(cfg.bearerTokenFile(), "--vm-bearer-token-file");
        List<String[]> h = new ArrayList<>();
        for (String s : cfg.headers()) {
            int colon = s.indexOf(':');
            h.add(new String[] {s.substring(0, colon).strip(), s.substring(colon + 1).strip()});
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
                throw new IllegalArgumentException("URL " + u.url() + " carries user:password while --vm-bearer-token-file is set: give one of them");
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
        if (!headers.isEmpty() || passwordFile != null || tokenFile != null || cfg.basicAuthUsername() != null
                || !userinfoByOrigin.isEmpty()) {
            builder.addInterceptor(new AuthInterceptor());
        }
        if (cfg.customTls()) {
            configureTls(builder);
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
            return Credentials.basic(cfg.basicAuthUsername(), passwordFile == null ? "" : passwordFile.value(), StandardCharsets.UTF_8);
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
            // a refusal right after a rotation: re-read the secret files and, when they changed, send once more. 400 is in
            // the list because vmauth 1.79 answers an unknown bearer token with 400, which would otherwise be taken for
            // a refused body (split and dead-lettered)
            int code = response.code();
            if ((code == 401 || code == 403 || code == 400) && !userinfoByOrigin.containsKey(origin(original.url()))) {
                boolean changed = (passwordFile != null && passwordFile.reload()) | (tokenFile != null && tokenFile.reload());
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

    // ------------------------------------------------------------------------------------------------------ TLS

    private void configureTls(OkHttpClient.Builder builder) {
        try {
            X509TrustManager trust = cfg.tlsInsecureSkipVerify() ? new TrustAll()
                    : cfg.tlsCaFile() != null ? trustManager(readCertificates(cfg.tlsCaFile(), "--vm-tls-ca-file"))
                    : trustManager(null);
            KeyManager[] keys = null;
            if (cfg.tlsCertFile() != null) {
                List<X509Certificate> chain = readCertificates(cfg.tlsCertFile(), "--vm-tls-cert-file");
                PrivateKey key = readPrivateKey(cfg.tlsKeyFile());
                KeyStore ks = KeyStore.getInstance("PKCS12");
                ks.load(null, null);
                ks.setKeyEntry("client", key, new char[0], chain.toArray(new Certificate[0]));
                KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(ks, new char[0]);
                keys = kmf.getKeyManagers();
            }
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(keys, new TrustManager[] {trust}, null);
            SSLSocketFactory factory = ctx.getSocketFactory();
            String serverName = cfg.tlsServerName();
            if (serverName != null) {
                factory = new ServerNameSocketFactory(factory, serverName);
            }
            builder.sslSocketFactory(factory, trust);
            if (cfg.tlsInsecureSkipVerify()) {
                builder.hostnameVerifier((host, session) -> true);
            } else if (serverName != null) {
                builder.hostnameVerifier((host, session) -> OkHostnameVerifier.INSTANCE.verify(serverName, session));
            }
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException("VictoriaMetrics TLS settings: " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    private static X509TrustManager trustManager(List<X509Certificate> cas) throws GeneralSecurityException, IOException {
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        if (cas == null) {
            tmf.init((KeyStore) null);
        } else {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            for (int i = 0; i < cas.size(); i++) {
                ks.setCertificateEntry("ca-" + i, cas.get(i));
            }
            tmf.init(ks);
        }
        for (TrustManager tm : tmf.getTrustManagers()) {
            if (tm instanceof X509TrustManager x) {
                return x;
            }
        }
        throw new GeneralSecurityException("no X509TrustManager");
    }

    static List<X509Certificate> readCertificates(Path file, String flag) {
        try {
            byte[] pem = Files.readAllBytes(file);
            Collection<? extends Certificate> certs = CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem));
            List<X509Certificate> out = new ArrayList<>();
            for (Certificate c : certs) {
                out.add((X509Certificate) c);
            }
            if (out.isEmpty()) {
                throw new IllegalArgumentException(flag + " " + file + ": no PEM certificate in it");
            }
            return out;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException(flag + " " + file + ": cannot read a PEM certificate (" + e.getClass().getSimpleName() + ")");
        }
    }

    /** PKCS#8 ({@code PRIVATE KEY}: RSA, EC, Ed25519) or PKCS#1 ({@code RSA PRIVATE KEY}), unencrypted. */
    static PrivateKey readPrivateKey(Path file) {
        String flag = "--vm-tls-key-file";
        String text;
        try {
            text = Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new IllegalArgumentException(flag + " " + file + ": cannot read it (" + e.getClass().getSimpleName() + ")");
        }
        String type = null;
        StringBuilder b64 = new StringBuilder();
        for (String line : text.split("\r?\n")) {
            if (line.startsWith("-----BEGIN ")) {
                type = line.substring(11, line.lastIndexOf("-----"));
            } else if (line.startsWith("-----END ")) {
                break;
            } else if (type != null) {
                b64.append(line.strip());
            }
        }
        if (type == null) {
            throw new IllegalArgumentException(flag + " " + file + ": no PEM block in it");
        }
        byte[] der;
        try {
            der = Base64.getMimeDecoder().decode(b64.toString());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(flag + " " + file + ": bad base64 in the PEM block");
        }
        byte[] pkcs8 = switch (type) {
            case "PRIVATE KEY" -> der;
            case "RSA PRIVATE KEY" -> wrapPkcs1(der);
            default -> throw new IllegalArgumentException(flag + " " + file + ": unsupported PEM block '" + type
                    + "'; convert it with `openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8`");
        };
        for (String alg : List.of("RSA", "EC", "Ed25519", "RSASSA-PSS")) {
            try {
                return KeyFactory.getInstance(alg).generatePrivate(new PKCS8EncodedKeySpec(pkcs8));
            } catch (GeneralSecurityException e) {
                // try the next algorithm
            }
        }
        throw new IllegalArgumentException(flag + " " + file + ": not an RSA, EC or Ed25519 private key");
    }

    /** PKCS#1 RSAPrivateKey → PKCS#8 PrivateKeyInfo (version 0, rsaEncryption, NULL params). */
    private static byte[] wrapPkcs1(byte[] pkcs1) {
        byte[] algId = {0x30, 0x0d, 0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00};
        byte[] version = {0x02, 0x01, 0x00};
        byte[] octet = der(0x04, pkcs1);
        byte[] body = new byte[version.length + algId.length + octet.length];
        System.arraycopy(version, 0, body, 0, version.length);
        System.arraycopy(algId, 0, body, version.length, algId.length);
        System.arraycopy(octet, 0, body, version.length + algId.length, octet.length);
        return der(0x30, body);
    }

    private static byte[] der(int tag, byte[] content) {
        int n = content.length;
        byte[] len = n < 0x80 ? new byte[] {(byte) n}
                : n < 0x100 ? new byte[] {(byte) 0x81, (byte) n}
                : n < 0x10000 ? new byte[] {(byte) 0x82, (byte) (n >> 8), (byte) n}
                : new byte[] {(byte) 0x83, (byte) (n >> 16), (byte) (n >> 8), (byte) n};
        byte[] out = new byte[1 + len.length + n];
        out[0] = (byte) tag;
        System.arraycopy(len, 0, out, 1, len.length);
        System.arraycopy(content, 0, out, 1 + len.length, n);
        return out;
    }

    /** {@code --vm-tls-insecure-skip-verify}. */
    private static final class TrustAll implements X509TrustManager {
        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }

    /** Sends {@code serverName} as SNI (JSSE takes SNI from the host passed to a layered {@code createSocket}). */
    private static final class ServerNameSocketFactory extends SSLSocketFactory {
        private final SSLSocketFactory d;
        private final String serverName;

        ServerNameSocketFactory(SSLSocketFactory delegate, String serverName) {
            this.d = delegate;
            this.serverName = serverName;
        }

        @Override
        public String[] getDefaultCipherSuites() {
            return d.getDefaultCipherSuites();
        }

        @Override
        public String[] getSupportedCipherSuites() {
            return d.getSupportedCipherSuites();
        }

        @Override
        public Socket createSocket(Socket s, String host, int port, boolean autoClose) throws IOException {
            return d.createSocket(s, serverName, port, autoClose);
        }

        @Override
        public Socket createSocket(String host, int port) throws IOException {
            return d.createSocket(host, port);
        }

        @Override
        public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
            return d.createSocket(host, port, localHost, localPort);
        }

        @Override
        public Socket createSocket(InetAddress host, int port) throws IOException {
            return d.createSocket(host, port);
        }

        @Override
        public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort) throws IOException {
            return d.createSocket(address, port, localAddress, localPort);
        }
    }
}
