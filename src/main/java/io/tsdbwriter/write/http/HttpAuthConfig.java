package io.tsdbwriter.write.http;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Authentication and TLS settings of the HTTP client that talks to VictoriaMetrics (and other Prometheus-compatible
 * TSDBs), named after vmagent's {@code -remoteWrite.*} flags (VictoriaMetrics {@code lib/promauth}). Applied to every
 * request of the client, the capacity probe ({@code /metrics}) included, by {@link HttpClientSecurity}.
 *
 * <p>Secrets are never held here: only paths of files holding them, re-read when they change. A URL's userinfo
 * ({@code http://user:pass@host}) is the other way to give basic auth; {@link SafeUrl} takes it out of the URL.
 *
 * <p>Immutable; thread-safe. {@link #toString()} shows no header values.
 *
 * @param basicAuthUsername     {@code -remoteWrite.basicAuth.username}, or null
 * @param basicAuthPasswordFile {@code -remoteWrite.basicAuth.passwordFile}: file whose content (trailing whitespace
 *                              trimmed) is the password, or null (empty password)
 * @param bearerTokenFile       {@code -remoteWrite.bearerTokenFile}: file holding the bearer token, or null
 * @param headers               {@code -remoteWrite.headers}: {@code Name: value} entries sent with every request
 * @param tlsCaFile             {@code -remoteWrite.tlsCAFile}: PEM CA certificate(s) trusted instead of the JDK's, or null
 * @param tlsCertFile           {@code -remoteWrite.tlsCertFile}: PEM client certificate (chain), or null
 * @param tlsKeyFile            {@code -remoteWrite.tlsKeyFile}: PEM private key of the client certificate (PKCS#8 or
 *                              PKCS#1 RSA, unencrypted), or null
 * @param tlsServerName         {@code -remoteWrite.tlsServerName}: name sent as SNI and checked against the server
 *                              certificate instead of the URL's host, or null
 * @param tlsInsecureSkipVerify {@code -remoteWrite.tlsInsecureSkipVerify}: accept any server certificate
 */
public record HttpAuthConfig(
        String basicAuthUsername,
        Path basicAuthPasswordFile,
        Path bearerTokenFile,
        List<String> headers,
        Path tlsCaFile,
        Path tlsCertFile,
        Path tlsKeyFile,
        String tlsServerName,
        boolean tlsInsecureSkipVerify) {

    /** No authentication, the JDK's trust store. */
    public static final HttpAuthConfig NONE =
            new HttpAuthConfig(null, null, null, List.of(), null, null, null, null, false);

    /** @throws IllegalArgumentException naming the vmagent-style flag that is inconsistent */
    public HttpAuthConfig {
        headers = List.copyOf(Objects.requireNonNull(headers, "headers"));
        for (String h : headers) {
            int colon = h.indexOf(':');
            if (colon <= 0
                    || h.substring(0, colon).isBlank()
                    || !h.substring(0, colon).strip().matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+")) {
                throw new IllegalArgumentException(
                        "--vm-header needs NAME:VALUE with a valid header name (the value given is not shown: it may be a secret)");
            }
        }
        if (basicAuthPasswordFile != null && (basicAuthUsername == null || basicAuthUsername.isEmpty())) {
            throw new IllegalArgumentException("--vm-basic-auth-password-file needs --vm-basic-auth-username");
        }
        if (bearerTokenFile != null && basicAuthUsername != null) {
            throw new IllegalArgumentException(
                    "give either --vm-basic-auth-username or --vm-bearer-token-file, not both");
        }
        if ((tlsCertFile == null) != (tlsKeyFile == null)) {
            throw new IllegalArgumentException("--vm-tls-cert-file and --vm-tls-key-file go together");
        }
        if (tlsServerName != null && tlsServerName.isBlank()) {
            tlsServerName = null;
        }
        if (basicAuthUsername != null && basicAuthUsername.isEmpty()) {
            basicAuthUsername = null;
        }
    }

    /** True when any TLS setting differs from the JDK defaults. */
    public boolean customTls() {
        return tlsCaFile != null || tlsCertFile != null || tlsServerName != null || tlsInsecureSkipVerify;
    }

    /** Header names only: values may be secrets. */
    @Override
    public String toString() {
        return "HttpAuthConfig[basicAuthUsername=" + (basicAuthUsername == null ? "-" : "set")
                + ", basicAuthPasswordFile=" + basicAuthPasswordFile + ", bearerTokenFile=" + bearerTokenFile
                + ", headers="
                + headers.stream()
                        .map(h -> h.substring(0, h.indexOf(':')).strip())
                        .toList()
                + ", tlsCaFile=" + tlsCaFile + ", tlsCertFile=" + tlsCertFile + ", tlsKeyFile=" + tlsKeyFile
                + ", tlsServerName=" + tlsServerName + ", tlsInsecureSkipVerify=" + tlsInsecureSkipVerify + "]";
    }
}
