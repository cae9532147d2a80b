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
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import okhttp3.OkHttpClient;
import okhttp3.internal.tls.OkHostnameVerifier;

/**
 * The TLS half of the VictoriaMetrics HTTP settings (vmagent's {@code -remoteWrite.tlsCAFile}, {@code tlsCertFile},
 * {@code tlsKeyFile}, {@code tlsServerName}, {@code tlsInsecureSkipVerify}): a CA bundle and a client certificate from
 * PEM files (PKCS#8 or PKCS#1 RSA keys), SNI and hostname verification by a given server name. The authentication
 * half is {@link HttpClientSecurity}. Stateless.
 */
final class HttpTls {

    private HttpTls() {}

    /**
     * Sets the socket factory, trust manager and hostname verifier of {@code cfg}'s TLS settings on {@code builder}.
     *
     * @throws IllegalArgumentException when a PEM file cannot be read or parsed (names the flag and file)
     */
    static void configure(OkHttpClient.Builder builder, HttpAuthConfig cfg) {
        try {
            X509TrustManager trust = cfg.tlsInsecureSkipVerify()
                    ? new TrustAll()
                    : cfg.tlsCaFile() != null
                            ? trustManager(readCertificates(cfg.tlsCaFile(), "--vm-tls-ca-file"))
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
            throw new IllegalArgumentException(
                    "VictoriaMetrics TLS settings: " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    private static X509TrustManager trustManager(List<X509Certificate> cas)
            throws GeneralSecurityException, IOException {
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
            Collection<? extends Certificate> certs =
                    CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem));
            List<X509Certificate> out = new ArrayList<>();
            for (Certificate c : certs) {
                out.add((X509Certificate) c);
            }
            if (out.isEmpty()) {
                throw new IllegalArgumentException(flag + " " + file + ": no PEM certificate in it");
            }
            return out;
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalArgumentException(flag + " " + file + ": cannot read a PEM certificate ("
                    + e.getClass().getSimpleName() + ")");
        }
    }

    /** PKCS#8 ({@code PRIVATE KEY}: RSA, EC, Ed25519) or PKCS#1 ({@code RSA PRIVATE KEY}), unencrypted. */
    static PrivateKey readPrivateKey(Path file) {
        String flag = "--vm-tls-key-file";
        String text;
        try {
            text = Files.readString(file, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    flag + " " + file + ": cannot read it (" + e.getClass().getSimpleName() + ")");
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
        byte[] pkcs8 =
                switch (type) {
                    case "PRIVATE KEY" -> der;
                    case "RSA PRIVATE KEY" -> wrapPkcs1(der);
                    default ->
                        throw new IllegalArgumentException(flag + " " + file + ": unsupported PEM block '" + type
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
        byte[] algId = {
            0x30,
            0x0d,
            0x06,
            0x09,
            0x2a,
            (byte) 0x86,
            0x48,
            (byte) 0x86,
            (byte) 0xf7,
            0x0d,
            0x01,
            0x01,
            0x01,
            0x05,
            0x00
        };
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
        byte[] len = n < 0x80
                ? new byte[] {(byte) n}
                : n < 0x100
                        ? new byte[] {(byte) 0x81, (byte) n}
                        : n < 0x10000
                                ? new byte[] {(byte) 0x82, (byte) (n >> 8), (byte) n}
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
        public void checkClientTrusted(X509Certificate[] chain, String authType) {}

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) {}

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
        public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
                throws IOException {
            return d.createSocket(address, port, localAddress, localPort);
        }
    }
}
