package io.tsdbwriter.write.http;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import javax.net.SocketFactory;

/**
 * Plain sockets with Nagle's algorithm off ({@code TCP_NODELAY}), for OkHttp's
 * {@code OkHttpClient.Builder.socketFactory} (TLS is layered on these sockets by OkHttp, so it applies to https too).
 *
 * <p>Why: OkHttp leaves Nagle on, and it writes a request as its headers and then the body in 8 KiB pieces. A body
 * smaller than one segment (on loopback 64 KiB: a snappy-compressed remote write request of 10,000 samples at M=12
 * is ~40 KiB) is then held until the receiver acknowledges the headers, and the receiver delays that
 * acknowledgement, as Linux does, by up to 40 ms — waiting for the body it needs before answering. Each such
 * request waits ~40 ms with both processes idle: remote write to VictoriaMetrics at M=12 reached 0.82 M samples/s
 * from pre-serialized requests where its CPU allows 1.7 M (docs/benchmarks-archive.md). Go's HTTP server, the
 * receivers we write to, sets {@code TCP_NODELAY} on its side for the same reason.
 *
 * <p>Thread-safe; stateless.
 */
public final class NoDelaySocketFactory extends SocketFactory {

    private final SocketFactory delegate;

    /** Sockets of {@link SocketFactory#getDefault()}. */
    public NoDelaySocketFactory() {
        this(SocketFactory.getDefault());
    }

    /** @param delegate makes the sockets this factory turns Nagle off on */
    public NoDelaySocketFactory(SocketFactory delegate) {
        this.delegate = delegate;
    }

    @Override
    public Socket createSocket() throws IOException {
        return noDelay(delegate.createSocket());
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return noDelay(delegate.createSocket(host, port));
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return noDelay(delegate.createSocket(host, port, localHost, localPort));
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return noDelay(delegate.createSocket(host, port));
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
            throws IOException {
        return noDelay(delegate.createSocket(address, port, localAddress, localPort));
    }

    private static Socket noDelay(Socket s) throws IOException {
        s.setTcpNoDelay(true);
        return s;
    }
}
