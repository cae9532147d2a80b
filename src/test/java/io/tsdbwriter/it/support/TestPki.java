package io.tsdbwriter.it.support;

import io.tsdbwriter.it.support.LocalStack.ChildProcesses;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away PKI made by the JDK's {@code keytool} (child processes; no library): a CA, a server certificate for
 * {@code 127.0.0.1} / {@code localhost} and a client certificate {@code CN=writer}, all EC P-256, valid two days, all
 * signed by the CA. Files under {@code <dir>}: {@code ca.pem}; {@code server.p12} (PKCS#12 with key and chain, for
 * Kafka), {@code server.pem} + {@code server.key} (PEM chain and PKCS#8 key, for Go servers and the TLS proxy);
 * {@code client.pem} + {@code client.key}. Store password: {@link #STORE_PASSWORD}. Immutable once made; thread-safe.
 */
public final class TestPki {

    /** Password of every PKCS#12 store made here. */
    public static final String STORE_PASSWORD = "test-store-pass";

    private final Path dir;

    private TestPki(Path dir) {
        this.dir = dir;
    }

    /** Makes the PKI in {@code dir} (created). Takes a few seconds (about ten keytool runs). */
    public static TestPki create(Path dir) {
        try {
            Files.createDirectories(dir);
            TestPki pki = new TestPki(dir.toAbsolutePath());
            pki.keytool("-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=tsdb-writer test CA",
                    "-ext", "bc:c", "-validity", "2", "-keystore", "ca.p12", "-storetype", "PKCS12", "-storepass", STORE_PASSWORD);
            pki.keytool("-exportcert", "-rfc", "-alias", "ca", "-keystore", "ca.p12", "-storepass", STORE_PASSWORD, "-file", "ca.pem");
            java.util.concurrent.CompletableFuture<Void> client = java.util.concurrent.CompletableFuture.runAsync(() -> {
                try {
                    pki.leaf("client", "CN=writer", "san=dns:writer", "clientAuth");
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            pki.leaf("server", "CN=localhost", "san=ip:127.0.0.1,dns:localhost", "serverAuth");
            client.join();
            return pki;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void leaf(String name, String dname, String san, String eku) throws IOException {
        String store = name + ".p12";
        keytool("-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", dname, "-validity", "2",
                "-keystore", store, "-storetype", "PKCS12", "-storepass", STORE_PASSWORD);
        keytool("-certreq", "-alias", name, "-keystore", store, "-storepass", STORE_PASSWORD, "-file", name + ".csr");
        keytool("-gencert", "-alias", "ca", "-keystore", "ca.p12", "-storepass", STORE_PASSWORD, "-infile", name + ".csr",
                "-outfile", name + ".leaf.pem", "-rfc", "-validity", "2", "-ext", san, "-ext", "eku=" + eku);
        keytool("-importcert", "-noprompt", "-alias", "ca", "-file", "ca.pem", "-keystore", store, "-storepass", STORE_PASSWORD);
        keytool("-importcert", "-alias", name, "-file", name + ".leaf.pem", "-keystore", store, "-storepass", STORE_PASSWORD);
        Files.writeString(dir.resolve(name + ".pem"), Files.readString(dir.resolve(name + ".leaf.pem")) + Files.readString(dir.resolve("ca.pem")));
        try (InputStream in = Files.newInputStream(dir.resolve(store))) {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(in, STORE_PASSWORD.toCharArray());
            Key key = ks.getKey(name, STORE_PASSWORD.toCharArray());
            String pem = "-----BEGIN PRIVATE KEY-----\n" + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
                    .encodeToString(key.getEncoded()) + "\n-----END PRIVATE KEY-----\n";
            Files.writeString(dir.resolve(name + ".key"), pem);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot read back " + store, e);
        }
    }

    private synchronized void log(String line) throws IOException {
        Files.writeString(dir.resolve("keytool.log"), line + "\n", java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
    }

    private void keytool(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(ChildProcesses.javaBinary()).resolveSibling("keytool").toString());
        cmd.add("-J-XX:TieredStopAtLevel=1");
        cmd.addAll(List.of(args));
        try {
            Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IllegalStateException("keytool failed: " + String.join(" ", cmd) + "; " + output);
            }
            log(String.join(" ", args) + "\n" + output);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted running keytool", e);
        }
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
