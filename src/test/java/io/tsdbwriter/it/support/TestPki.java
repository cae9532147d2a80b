package io.tsdbwriter.it.support;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A throw-away PKI made in process (BouncyCastle's certificate builder over JDK keys): a CA, a server certificate for
 * {@code 127.0.0.1} / {@code localhost} and a client certificate {@code CN=writer}, all EC P-256, valid two days, both
 * signed by the CA. Files under {@code <dir>}: {@code ca.pem}; {@code server.p12} (PKCS#12 with key and chain, for
 * Kafka), {@code server.pem} + {@code server.key} (PEM chain and PKCS#8 key, for Go servers);
 * {@code client.pem} + {@code client.key}. Store password: {@link #STORE_PASSWORD}. Immutable once made; thread-safe.
 */
public final class TestPki {

    /** Password of every PKCS#12 store made here. */
    public static final String STORE_PASSWORD = "test-store-pass";

    private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

    private final Path dir;

    private TestPki(Path dir) {
        this.dir = dir;
    }

    /** Makes the PKI in {@code dir} (created). */
    public static TestPki create(Path dir) {
        try {
            Files.createDirectories(dir);
            TestPki pki = new TestPki(dir.toAbsolutePath());
            KeyPair caKeys = keyPair();
            X500Name caName = new X500Name("CN=tsdb-writer test CA");
            JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
            X509v3CertificateBuilder ca = builder(caName, caName, caKeys)
                    .addExtension(Extension.basicConstraints, true, new BasicConstraints(0))
                    .addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign))
                    .addExtension(
                            Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(caKeys.getPublic()));
            X509Certificate caCert = sign(ca, caKeys);
            Files.writeString(pki.caPem(), pem("CERTIFICATE", caCert.getEncoded()));
            pki.leaf(
                    "server",
                    "CN=localhost",
                    new GeneralNames(new GeneralName[] {
                        new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
                        new GeneralName(GeneralName.dNSName, "localhost")
                    }),
                    KeyPurposeId.id_kp_serverAuth,
                    caName,
                    caKeys,
                    caCert);
            pki.leaf(
                    "client",
                    "CN=writer",
                    new GeneralNames(new GeneralName(GeneralName.dNSName, "writer")),
                    KeyPurposeId.id_kp_clientAuth,
                    caName,
                    caKeys,
                    caCert);
            return pki;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException | OperatorCreationException e) {
            throw new IllegalStateException("cannot make the test PKI", e);
        }
    }

    private void leaf(
            String name,
            String subject,
            GeneralNames san,
            KeyPurposeId purpose,
            X500Name caName,
            KeyPair caKeys,
            X509Certificate caCert)
            throws IOException, GeneralSecurityException, OperatorCreationException {
        KeyPair keys = keyPair();
        JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
        X509Certificate cert = sign(
                builder(caName, new X500Name(subject), keys)
                        .addExtension(Extension.basicConstraints, true, new BasicConstraints(false))
                        .addExtension(
                                Extension.keyUsage,
                                true,
                                new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyAgreement))
                        .addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose))
                        .addExtension(Extension.subjectAlternativeName, false, san)
                        .addExtension(
                                Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(caCert)),
                caKeys);
        Files.writeString(
                dir.resolve(name + ".pem"),
                pem("CERTIFICATE", cert.getEncoded()) + pem("CERTIFICATE", caCert.getEncoded()));
        Files.writeString(
                dir.resolve(name + ".key"), pem("PRIVATE KEY", keys.getPrivate().getEncoded()));
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        ks.setKeyEntry(name, keys.getPrivate(), STORE_PASSWORD.toCharArray(), new Certificate[] {cert, caCert});
        try (OutputStream out = Files.newOutputStream(dir.resolve(name + ".p12"))) {
            ks.store(out, STORE_PASSWORD.toCharArray());
        }
    }

    private static KeyPair keyPair() throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        return g.generateKeyPair();
    }

    private static JcaX509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair subjectKeys) {
        Instant now = Instant.now();
        return new JcaX509v3CertificateBuilder(
                issuer,
                BigInteger.valueOf(SERIAL.incrementAndGet()),
                Date.from(now.minus(Duration.ofHours(1))),
                Date.from(now.plus(Duration.ofDays(2))),
                subject,
                subjectKeys.getPublic());
    }

    private static X509Certificate sign(X509v3CertificateBuilder b, KeyPair signer)
            throws GeneralSecurityException, OperatorCreationException {
        return new JcaX509CertificateConverter()
                .getCertificate(b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(signer.getPrivate())));
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                        .encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    /** PEM of the CA certificate. */
    public Path caPem() {
        return dir.resolve("ca.pem");
    }

    /** PKCS#12 store with the server key and chain (alias {@code server}). */
    public Path serverP12() {
        return dir.resolve("server.p12");
    }

    /** PEM chain of the server certificate (leaf, then CA). */
    public Path serverPem() {
        return dir.resolve("server.pem");
    }

    /** PKCS#8 PEM key of the server certificate. */
    public Path serverKey() {
        return dir.resolve("server.key");
    }

    /** PEM chain of the client certificate {@code CN=writer}. */
    public Path clientPem() {
        return dir.resolve("client.pem");
    }

    /** PKCS#8 PEM key of the client certificate. */
    public Path clientKey() {
        return dir.resolve("client.key");
    }
}
