package io.tsdbwriter.it.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * A TLS-terminating TCP proxy that REQUIRES a client certificate signed by the test CA, in front of a plain HTTP
 * server (the Debian vmauth 1.79.5 has no {@code -mtls}; that is an enterprise flag). Listens on a free loopback port;
 * each accepted connection is copied both ways on two virtual threads. Counts handshakes that failed (no or an
 * untrusted client certificate). Thread-safe.
 */
public final class MtlsProxy implements AutoCloseable {

    private final SSLServerSocket server;
    private final int targetPort;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final AtomicLong refused = new AtomicLong();
    private volatile boolean closed;

    /** Starts the proxy to {@code 127.0.0.1:targetPort} with the PKI's server certificate. */
    public MtlsProxy(TestPki pki, int targetPort) {
        this.targetPort = targetPort;
        try {
            char[] pw = TestPki.STORE_PASSWORD.toCharArray();
            KeyStore ks = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(pki.serverP12())) {
                ks.load(in, pw);
            }
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(ks, pw);
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry(
                    "ca",
                    CertificateFactory.getInstance("X.509").generateCertificate(Files.newInputStream(pki.caPem())));
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
            server = (SSLServerSocket)
                    ctx.getServerSocketFactory().createServerSocket(0, 50, InetAddress.getLoopbackAddress());
            server.setNeedClientAuth(true);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        Thread.ofVirtual().name("mtls-accept").start(this::acceptLoop);
    }

    /** {@code https://127.0.0.1:<port>}. */
    public String url() {
        return "https://127.0.0.1:" + server.getLocalPort();
    }

    /** Connections whose TLS handshake failed. */
    public long refusedHandshakes() {
        return refused.get();
    }

    private void acceptLoop() {
        while (!closed) {
            try {
                SSLSocket client = (SSLSocket) server.accept();
                Thread.ofVirtual().start(() -> serve(client));
            } catch (IOException e) {
                if (closed) {
                    return;
                }
            }
        }
    }

    private void serve(SSLSocket client) {
        try {
            client.startHandshake();
        } catch (IOException e) {
            refused.incrementAndGet();
            closeQuietly(client);
            return;
        }
        Socket upstream = new Socket();
        try {
            upstream.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort), 5000);
        } catch (IOException e) {
            closeQuietly(client);
            return;
        }
        open.add(client);
        open.add(upstream);
        Thread.ofVirtual().start(() -> pump(client, upstream));
        pump(upstream, client);
    }

    private void pump(Socket from, Socket to) {
        byte[] buf = new byte[64 * 1024];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                out.write(buf, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // connection closed
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private void closeQuietly(Socket s) {
        open.remove(s);
        try {
            s.close();
        } catch (IOException e) {
            // ignore
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            // ignore
        }
        open.forEach(this::closeQuietly);
    }
}
