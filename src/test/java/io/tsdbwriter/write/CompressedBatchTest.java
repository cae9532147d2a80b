package io.tsdbwriter.write;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.wire.ByteBuf;
import io.tsdbwriter.wire.Output;
import io.tsdbwriter.write.http.HttpAuthConfig;
import io.tsdbwriter.write.http.HttpClientSecurity;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import okhttp3.mockwebserver.Dispatcher;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A remote write batch kept as its snappy block while it waits ({@link WriteBatch#compressed()},
 * {@link WriteClient#compress}, {@link OrderedLanes#submit}): the same requests, the same splits and refusals as an
 * uncompressed one, its body array back in the pool at once.
 */
class CompressedBatchTest {

    private static final long WAIT_S = 30;

    private MockWebServer server;
    private final List<WriteClient> clients = new CopyOnWriteArrayList<>();

    @BeforeEach
    void startServer() throws IOException {
        server = new MockWebServer();
        server.start(InetAddress.getLoopbackAddress(), 0);
    }

    @AfterEach
    void stop() throws IOException {
        clients.forEach(WriteClient::close);
        server.shutdown();
    }

    private WriteClient remoteWrite() {
        WriteClient c = new WriteClient(Duration.ofSeconds(30), 4, false, Output.REMOTE_WRITE);
        clients.add(c);
        return c;
    }

    /** A batch of one point per text (its body array from {@code pool}, or not pooled when null), each 2 samples. */
    private static WriteBatch<String, Void> batch(BodyPool pool, String... points) {
        WriteBatch<String, Void> b = pool == null ? new WriteBatch<>(64, 4) : new WriteBatch<>(pool, 64, 4);
        for (String p : points) {
            b.body().put(p.getBytes(StandardCharsets.UTF_8));
            b.addPoint(2, p);
        }
        return b;
    }

    private static String text(byte[] snappy, int length) throws IOException {
        return new String(SnappyBlock.uncompress(Arrays.copyOf(snappy, length)), StandardCharsets.UTF_8);
    }

    @Test
    void aCompressedBatchKeepsItsLengthGivesItsArrayBackAndSlicesAsBefore() throws IOException {
        BodyPool pool = new BodyPool(4, 1 << 20);
        WriteBatch<String, Void> b = batch(pool, "alpha;", "beta;", "gamma;");
        remoteWrite().compress(b);

        assertThat(b.compressed()).isTrue();
        assertThat(b.body().length()).isZero();
        assertThat(b.bodyLength()).isEqualTo("alpha;beta;gamma;".length());
        assertThat(pool.arrays()).as("the body array is back in the pool").isEqualTo(1);
        assertThat(text(b.block(), b.blockLength())).isEqualTo("alpha;beta;gamma;");
        assertThat(b.points()).isEqualTo(3);
        assertThat(b.samples()).isEqualTo(6);

        WriteBatch<String, Void> tail = b.slice(1, 3);
        assertThat(b.compressed()).as("a split decompresses it").isFalse();
        assertThat(new String(b.body().array(), 0, b.body().length(), StandardCharsets.UTF_8))
                .isEqualTo("alpha;beta;gamma;");
        assertThat(new String(tail.body().array(), 0, tail.body().length(), StandardCharsets.UTF_8))
                .isEqualTo("beta;gamma;");
        assertThat(tail.source(0)).isEqualTo("beta;");
        assertThat(tail.samples()).isEqualTo(4);
    }

    @Test
    void recycleLetsTheBlockGoAndCompressingIsOnce() {
        WriteBatch<String, Void> b = batch(new BodyPool(4, 1 << 20), "alpha;");
        WriteClient c = remoteWrite();
        c.compress(b);
        byte[] block = b.block();
        c.compress(b);
        assertThat(b.block()).as("idempotent").isSameAs(block);
        b.recycle();
        assertThat(b.compressed()).isFalse();
        assertThat(b.bodyLength()).isZero();
        assertThat(b.points()).isEqualTo(1);
    }

    @Test
    void importBodiesAndEmptyBodiesAreNotCompressed() {
        WriteClient imports = new WriteClient(Duration.ofSeconds(30), 4, false);
        clients.add(imports);
        WriteBatch<String, Void> b = batch(new BodyPool(4, 1 << 20), "{\"metric\":{}}\n");
        imports.compress(b);
        assertThat(b.compressed()).isFalse();
        assertThat(b.body().length()).isEqualTo(b.bodyLength()).isPositive();

        WriteBatch<String, Void> empty = new WriteBatch<>(64);
        remoteWrite().compress(empty);
        assertThat(empty.compressed()).isFalse();
    }

    @Test
    void aCompressedBatchSendsTheBytesAnUncompressedOneSends() throws IOException {
        WriteClient c = remoteWrite();
        WriteBatch<String, Void> plain = batch(null, "alpha;", "beta;");
        WriteBatch<String, Void> held = batch(null, "alpha;", "beta;");
        c.compress(held);
        WriteClient.Payload sent = c.prepare(held);
        WriteClient.Payload before = c.prepare(plain);
        try {
            assertThat(text(sent.bytes(), sent.length())).isEqualTo(text(before.bytes(), before.length()));
            assertThat(sent.samples()).isEqualTo(before.samples()).isEqualTo(4);
        } finally {
            c.release(sent);
            c.release(before);
        }
    }

    @Test
    void aRemoteWrite2RequestIsBuiltFromTheDecompressedBody() throws IOException {
        RequestBodyBuilder v2 = (body, length) -> {
            ByteBuf out = new ByteBuf(length + 3);
            out.put("v2:".getBytes(StandardCharsets.UTF_8));
            out.put(body, 0, length);
            return out;
        };
        WriteClient c = new WriteClient(
                Duration.ofSeconds(30),
                4,
                false,
                Output.REMOTE_WRITE,
                HttpClientSecurity.of(HttpAuthConfig.NONE),
                RemoteWriteVersion.V2,
                v2);
        clients.add(c);
        WriteBatch<String, Void> held = batch(null, "alpha;", "beta;");
        c.compress(held);
        WriteClient.Payload p = c.prepare(held);
        try {
            assertThat(text(p.bytes(), p.length())).isEqualTo("v2:alpha;beta;");
            assertThat(p.samples()).isEqualTo(4);
        } finally {
            c.release(p);
        }
    }

    @Test
    void aRefusedCompressedBatchIsSplitOnItsLaneUntilTheRefusedPointStandsAlone() throws Exception {
        List<String> received = new CopyOnWriteArrayList<>();
        server.setDispatcher(new Dispatcher() {
            @Override
            public MockResponse dispatch(RecordedRequest request) {
                String body;
                try {
                    body = new String(
                            SnappyBlock.uncompress(request.getBody().readByteArray()), StandardCharsets.UTF_8);
                } catch (IOException e) {
                    return new MockResponse().setResponseCode(500);
                }
                received.add(body);
                return new MockResponse().setResponseCode(body.contains("bad;") ? 400 : 204);
            }
        });
        WriteClient c = remoteWrite();
        BatchWriter writer = new BatchWriter(
                List.of(new WriteTarget(server.url("/").toString())),
                c,
                new WritePermits(4, 1 << 20),
                new RetryPolicy(5, Duration.ofMillis(200), Duration.ofSeconds(30), ms -> {}),
                OnWriteFailure.PAUSE,
                new WriterMeters(new SimpleMeterRegistry()),
                false);
        try (OrderedLanes lanes = new OrderedLanes(writer)) {
            lanes.open(1);
            CountDownLatch done = new CountDownLatch(1);
            List<String> refused = new CopyOnWriteArrayList<>();
            WriteBatch<String, Void> b = batch(new BodyPool(4, 1 << 20), "a;", "bad;", "c;", "d;");
            lanes.submit(0, b, new WriteListener<>() {
                @Override
                public void written(WriteBatch<String, Void> batch) {
                    done.countDown();
                }

                @Override
                public void rejected(WriteBatch<String, Void> batch, List<Rejection<String>> rejections) {
                    rejections.forEach(r -> refused.add(r.source()));
                    done.countDown();
                }

                @Override
                public void gaveUp(WriteBatch<String, Void> batch, WriteOutcome outcome) {
                    done.countDown();
                }

                @Override
                public void abandoned(WriteBatch<String, Void> batch) {
                    done.countDown();
                }
            });
            assertThat(done.await(WAIT_S, TimeUnit.SECONDS)).isTrue();
            assertThat(refused).containsExactly("bad;");
            assertThat(received)
                    .as("the whole batch, the empty probe, then the halves down to the refused point")
                    .containsExactly("a;bad;c;d;", "", "a;bad;", "", "a;", "bad;", "", "c;d;");
        } finally {
            writer.close();
        }
    }
}
