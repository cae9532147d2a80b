package io.tsdbwriter.cli;

import io.tsdbwriter.write.http.HttpAuthConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * VictoriaMetrics authentication and TLS flags, named after vmagent's {@code -remoteWrite.*} flags; shared by
 * {@code run}, {@code bench} and {@code verify}. One value for every URL the command calls (each {@code --vm-url} of
 * {@code run}; {@code verify}'s one {@code --vm-url} and its {@code --flush-url}s; vmagent takes a value per URL; here
 * only a URL's {@code user:password@} is per URL). Only wires; {@link HttpAuthConfig} and
 * {@link io.tsdbwriter.write.http.HttpClientSecurity} hold the logic. No secret is ever a flag value: passwords and
 * tokens come from files. Not thread-safe (picocli fills it once per execution).
 */
public final class VmHttpOptions {

    @Option(
            names = "--vm-basic-auth-username",
            paramLabel = "USER",
            description = "Basic auth user, for every TSDB URL (a URL's user:password@ wins)")
    String basicAuthUsername;

    @Option(
            names = "--vm-basic-auth-password-file",
            paramLabel = "FILE",
            description = "File holding the basic auth password; re-read when it changes")
    Path basicAuthPasswordFile;

    @Option(
            names = "--vm-bearer-token-file",
            paramLabel = "FILE",
            description = "File holding a bearer token; re-read when it changes")
    Path bearerTokenFile;

    @Option(
            names = "--vm-header",
            paramLabel = "NAME:VALUE",
            description = "HTTP header for every request (repeatable); values are never printed")
    List<String> headers = new ArrayList<>();

    @Option(
            names = "--vm-tls-ca-file",
            paramLabel = "FILE",
            description = "PEM CA certificate(s) to verify the server with")
    Path tlsCaFile;

    @Option(
            names = "--vm-tls-cert-file",
            paramLabel = "FILE",
            description = "PEM client certificate for mutual TLS; needs --vm-tls-key-file")
    Path tlsCertFile;

    @Option(
            names = "--vm-tls-key-file",
            paramLabel = "FILE",
            description = "PEM private key of the client certificate (PKCS#8 or PKCS#1 RSA)")
    Path tlsKeyFile;

    @Option(
            names = "--vm-tls-server-name",
            paramLabel = "NAME",
            description = "Server name sent as SNI and checked instead of the URL's host")
    String tlsServerName;

    @Option(names = "--vm-tls-insecure-skip-verify", description = "Accept any server certificate; for tests only")
    boolean tlsInsecureSkipVerify;

    /** @throws IllegalArgumentException naming the inconsistent flag */
    public HttpAuthConfig toConfig() {
        return new HttpAuthConfig(
                basicAuthUsername,
                basicAuthPasswordFile,
                bearerTokenFile,
                headers,
                tlsCaFile,
                tlsCertFile,
                tlsKeyFile,
                tlsServerName,
                tlsInsecureSkipVerify);
    }

    /** The same flags as arguments for a child {@code run} (the bench's writers). */
    public List<String> asArgs() {
        List<String> a = new ArrayList<>();
        add(a, "--vm-basic-auth-username", basicAuthUsername);
        add(a, "--vm-basic-auth-password-file", basicAuthPasswordFile);
        add(a, "--vm-bearer-token-file", bearerTokenFile);
        headers.forEach(h -> add(a, "--vm-header", h));
        add(a, "--vm-tls-ca-file", tlsCaFile);
        add(a, "--vm-tls-cert-file", tlsCertFile);
        add(a, "--vm-tls-key-file", tlsKeyFile);
        add(a, "--vm-tls-server-name", tlsServerName);
        if (tlsInsecureSkipVerify) {
            a.add("--vm-tls-insecure-skip-verify");
        }
        return a;
    }

    private static void add(List<String> a, String flag, Object value) {
        if (value != null) {
            a.add(flag);
            a.add(value instanceof Path p ? p.toAbsolutePath().toString() : value.toString());
        }
    }
}
