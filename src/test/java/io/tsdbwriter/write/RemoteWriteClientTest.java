package io.tsdbwriter.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.encode.remotewrite.RemoteWriteEncoder;
import io.tsdbwriter.it.support.RemoteWriteBodies;
import io.tsdbwriter.wire.ByteBuf;
import io.tsdbwriter.wire.Output;
import java.time.Duration;
import java.util.List;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The remote write request shape and the response policy of the Remote-Write 1.0 specification. */
class RemoteWriteClientTest {

    private MockWebServer server;
    private WriteClient client;

    @BeforeEach
    void start() throws Exception {
        server = new MockWebServer();
        server.start();
        client = new WriteClient(Duration.ofSeconds(10), 4, false, Output.REMOTE_WRITE);
    }

    @AfterEach
    void stop() throws Exception {
        client.close();
        server.shutdown();
    }

    private static ByteBuf body() {
        RemoteWriteEncoder e = new RemoteWriteEncoder(new AmplificationPlan(2, 1, 60_000));
        ByteBuf out = new ByteBuf(64);
        e.encodePoint(e.prepareSeries("up", new String[] {"job"}, new String[] {"x"}, 0, 1), 0, 1000, 1, out);
        return out;
    }

    @Test
    void postsSnappyProtobufWithTheSpecificationsHeadersToTheWholeUrl() throws Exception {
        server.enqueue(new MockResponse().setResponseCode(204));
        WriteTarget e = WriteTarget.remoteWrite(
                server.url("/insert/0/prometheus/api/v1/write").toString());
        WriteOutcome o = client.post(e, body(), null);
        assertThat(o.isSuccess()).isTrue();
        RecordedRequest r = server.takeRequest();
        assertThat(r.getPath()).isEqualTo("/insert/0/prometheus/api/v1/write");
        assertThat(r.getHeader("Content-Encoding")).isEqualTo("snappy");
        assertThat(r.getHeader("Content-Type")).isEqualTo("application/x-protobuf");
        assertThat(r.getHeader("X-Prometheus-Remote-Write-Version")).isEqualTo("0.1.0");
        assertThat(r.getHeader("User-Agent")).startsWith("tsdb-writer/");
        List<RemoteWriteBodies.Series> got =
                RemoteWriteBodies.decodeSnappy(r.getBody().readByteArray());
        assertThat(got).hasSize(1);
        assertThat(got.get(0).samples())
                .containsExactly(new RemoteWriteBodies.Sample(1, 1000), new RemoteWriteBodies.Sample(1, 31_000));
        assertThat(e.metricsUrl()).isEqualTo(server.url("/metrics").toString());
    }

    @Test
    void otherFourHundredsAreRefusedWhileConfigurationStatusesAreFaultsAnd429And5xxAreRetriedHonouringRetryAfter() {
        assertThat(ResponseClassifier.classify(Output.REMOTE_WRITE, 400, null, "")
                        .kind())
                .isEqualTo(WriteOutcome.Kind.REJECTED);
        assertThat(ResponseClassifier.classify(Output.REMOTE_WRITE, 404, null, "")
                        .kind())
                .isEqualTo(WriteOutcome.Kind.FAULT);
        assertThat(ResponseClassifier.classify(Output.REMOTE_WRITE, 409, null, "")
                        .kind())
                .isEqualTo(WriteOutcome.Kind.REJECTED);
        WriteOutcome tooMany = ResponseClassifier.classify(Output.REMOTE_WRITE, 429, "3", "");
        assertThat(tooMany.kind()).isEqualTo(WriteOutcome.Kind.RETRYABLE);
        assertThat(tooMany.retryAfterMs()).isEqualTo(3000);
        assertThat(ResponseClassifier.classify(Output.REMOTE_WRITE, 503, null, "")
                        .kind())
                .isEqualTo(WriteOutcome.Kind.RETRYABLE);
        assertThat(ResponseClassifier.classify(Output.REMOTE_WRITE, 200, null, "")
                        .isSuccess())
                .isTrue();
        // the import API: 404 is a configuration fault there too; 409 is retried (only 400/413/415 are refusals)
        assertThat(ResponseClassifier.classify(Output.IMPORT, 404, null, "").kind())
                .isEqualTo(WriteOutcome.Kind.FAULT);
        assertThat(ResponseClassifier.classify(Output.IMPORT, 409, null, "").kind())
                .isEqualTo(WriteOutcome.Kind.RETRYABLE);
    }

    @Test
    void gzipIsRefusedForRemoteWrite() {
        assertThatThrownBy(() -> new WriteClient(Duration.ofSeconds(1), 1, true, Output.REMOTE_WRITE))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("snappy");
    }

    @Test
    void aRemoteWriteUrlIsUsedWholeAndItsHostServesMetrics() {
        WriteTarget prom = WriteTarget.remoteWrite("http://prom:9090/api/v1/write/");
        assertThat(prom.writeUrl()).isEqualTo("http://prom:9090/api/v1/write");
        assertThat(prom.metricsUrl()).isEqualTo("http://prom:9090/metrics");
        assertThat(new WriteTarget("http://vm:8428").writeUrl()).isEqualTo("http://vm:8428/api/v1/import");
        assertThatThrownBy(() -> WriteTarget.remoteWrite("prom:9090/api/v1/write"))
                .hasMessageContaining("remote write URL");
    }

    @Test
    void credentialsAnEndpointEchoesBackAreCutFromTheLoggedDetail() {
        assertThat(WriteClient.excerpt("cannot find the provided auth token \"Bearer s3cr3t-token\" in config\n"))
                .isEqualTo("cannot find the provided auth token \"Bearer ***\" in config");
        assertThat(WriteClient.excerpt("auth token basic dXNlcjpodW50ZXIy, rejected"))
                .isEqualTo("auth token basic ***, rejected");
        assertThat(WriteClient.excerpt("unsupported path requested: /x/api/v1/import"))
                .isEqualTo("unsupported path requested: /x/api/v1/import");
    }

    @Test
    void theEmptyProbeIsAnEmptyWriteRequestWithTheProtocolsHeaders() throws Exception {
        server.enqueue(new MockResponse().setResponseCode(204));
        WriteTarget e = WriteTarget.remoteWrite(server.url("/api/v1/write").toString());

        assertThat(client.probeEmpty(e).isSuccess()).isTrue();

        RecordedRequest r = server.takeRequest();
        assertThat(r.getMethod()).isEqualTo("POST");
        assertThat(r.getHeader("Content-Encoding")).isEqualTo("snappy");
        assertThat(RemoteWriteBodies.decodeSnappy(r.getBody().readByteArray())).isEmpty();
    }
}
