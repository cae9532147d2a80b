package io.tsdbwriter.write.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.wire.Output;
import io.tsdbwriter.write.WriteClient;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class NoDelaySocketFactoryTest {

    @Test
    void theWriteClientsSocketsHaveNagleOffForImportAndRemoteWrite() throws Exception {
        for (Output output : Output.values()) {
            try (WriteClient client = new WriteClient(Duration.ofSeconds(1), 1, false, output);
                    Socket s = client.http().socketFactory().createSocket()) {
                assertThat(s.getTcpNoDelay()).as(output.name()).isTrue();
            }
        }
    }

    @Test
    void everyWayOfMakingASocketTurnsNagleOff() throws Exception {
        NoDelaySocketFactory f = new NoDelaySocketFactory();
        InetAddress loopback = InetAddress.getLoopbackAddress();
        try (ServerSocket server = new ServerSocket(0, 8, loopback);
                Socket a = f.createSocket(loopback, server.getLocalPort());
                Socket b = f.createSocket(loopback.getHostAddress(), server.getLocalPort());
                Socket c = f.createSocket(loopback, server.getLocalPort(), loopback, 0);
                Socket d = f.createSocket(loopback.getHostAddress(), server.getLocalPort(), loopback, 0)) {
            for (Socket s : new Socket[] {a, b, c, d}) {
                assertThat(s.getTcpNoDelay()).isTrue();
            }
        }
    }
}
