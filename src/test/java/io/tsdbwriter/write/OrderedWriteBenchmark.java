package io.tsdbwriter.write;

import com.sun.net.httpserver.HttpServer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.wire.Output;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * JMH benchmark of the write path behind the readers, per-series order ({@code lanes} &gt; 0: {@link OpenBatches} of
 * that many lanes, {@link OrderedLanes}) against none ({@code lanes} = 0: one open batch, {@link BatchWriter#submit}),
 * into a loopback HTTP sink that reads each body and answers 204. Three threads act as a partition's P = 3 readers;
 * each point is {@value #POINT_BYTES} body bytes of {@value #SAMPLES_PER_POINT} samples (a remote write 1.0 series of
 * node_exporter shape at M = 12) and keeps a {@value #SOURCE_BYTES}-byte source alive as long as its batch (as a Kafka
 * record is kept for dead-lettering); its series, one of {@value #SERIES}, picks its lane. Batches of 10,000 samples,
 * snappy-compressed on the write threads, 8 write permits. The score is <b>samples per second</b> of all three
 * threads; run with {@code -prof gc} for the allocation and collector time per sample.
 *
 * <p>Run: {@code java -cp target/test-classes:target/classes:<test classpath> org.openjdk.jmh.Main OrderedWrite}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(
        value = 1,
        jvmArgsAppend = {"-XX:+UseSerialGC", "-Xmx512m"})
@Threads(3)
public class OrderedWriteBenchmark {

    static final int POINTS = 20_000;
    static final int SAMPLES_PER_POINT = 12;
    static final int POINT_BYTES = 480;
    static final int SOURCE_BYTES = 300;
    static final int SERIES = 500_000;
    static final int BATCH_SAMPLES = 10_000;
    static final int PERMITS = 8;

    /** Ordered lanes: 0 = unordered. */
    @Param({"0", "8"})
    int lanes;

    private HttpServer sink;
    private WriteClient client;
    private BatchWriter writer;
    private OrderedLanes ordered;
    private final byte[] point = new byte[POINT_BYTES];

    @Setup(Level.Trial)
    public void start() throws IOException {
        byte[] text = "node_cpu_seconds_total{cpu=\"0\",instance=\"host-0042:9100\",job=\"node\",mode=\"idle\"} "
                .getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < point.length; i++) {
            point[i] = i % 64 < 48 ? text[i % text.length] : (byte) (i * 31);
        }
        sink = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        sink.createContext("/", exchange -> {
            try (InputStream in = exchange.getRequestBody()) {
                in.transferTo(OutputStream.nullOutputStream());
            }
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        sink.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        sink.start();
        client = new WriteClient(Duration.ofSeconds(30), PERMITS, false, Output.REMOTE_WRITE);
        writer = new BatchWriter(
                List.of(new WriteTarget("http://127.0.0.1:" + sink.getAddress().getPort() + "/")),
                client,
                new WritePermits(PERMITS, 256 << 20),
                new RetryPolicy(5, Duration.ofMillis(200), Duration.ofSeconds(30), ms -> {}),
                OnWriteFailure.PAUSE,
                new WriterMeters(new SimpleMeterRegistry()),
                false);
        if (lanes > 0) {
            ordered = new OrderedLanes(writer);
            ordered.open(lanes);
        }
    }

    @TearDown(Level.Trial)
    public void stop() {
        if (ordered != null) {
            ordered.close();
        }
        writer.close();
        client.close();
        sink.stop(0);
    }

    /** One reader: its open batches and its batches not yet written. */
    @State(Scope.Thread)
    public static class Reader implements WriteListener<byte[], Void> {
        OpenBatches<byte[], Void> open;
        int next;
        private int pending;

        @Setup(Level.Trial)
        public void start(OrderedWriteBenchmark b) {
            open = new OpenBatches<>(b.lanes);
            next = (int) Thread.currentThread().threadId() * 7919;
        }

        synchronized void sent() {
            pending++;
        }

        synchronized void awaitWritten() throws InterruptedException {
            while (pending > 0) {
                wait();
            }
        }

        private synchronized void done() {
            pending--;
            notifyAll();
        }

        @Override
        public void written(WriteBatch<byte[], Void> batch) {
            done();
        }

        @Override
        public void rejected(WriteBatch<byte[], Void> batch, List<Rejection<byte[]>> rejections) {
            done();
        }

        @Override
        public void gaveUp(WriteBatch<byte[], Void> batch, WriteOutcome outcome) {
            done();
        }

        @Override
        public void abandoned(WriteBatch<byte[], Void> batch) {
            done();
        }
    }

    /** {@value #POINTS} points of one reader into its batches, then every batch flushed and written. */
    @Benchmark
    @OperationsPerInvocation(POINTS * SAMPLES_PER_POINT)
    public void write(Reader r) throws InterruptedException {
        OpenBatches<byte[], Void> open = r.open;
        for (int p = 0; p < POINTS; p++) {
            int series = Math.floorMod(r.next++ * 0x9E3779B1, SERIES);
            int lane = lanes > 0 ? Math.floorMod(series * 0x85EBCA6B, lanes) : 0;
            int slot = open.slot(lane, null);
            WriteBatch<byte[], Void> b = open.get(slot);
            if (b == null) {
                b = open.open(slot, null, p);
            }
            b.body().put(point, 0, point.length);
            b.addPoint(SAMPLES_PER_POINT, new byte[SOURCE_BYTES]);
            if (b.samples() >= BATCH_SAMPLES) {
                hand(r, slot);
            }
        }
        for (int slot = 0; slot < open.slots() && open.count() > 0; slot++) {
            if (open.get(slot) != null) {
                hand(r, slot);
            }
        }
        r.awaitWritten();
    }

    private void hand(Reader r, int slot) throws InterruptedException {
        WriteBatch<byte[], Void> b = r.open.take(slot);
        r.sent();
        if (ordered != null) {
            ordered.submit(r.open.lane(slot), b, r);
        } else {
            writer.submit(b, r);
        }
    }
}
