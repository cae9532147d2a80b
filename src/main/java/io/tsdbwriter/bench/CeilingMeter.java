package io.tsdbwriter.bench;

import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.amplify.SeriesCache;
import io.tsdbwriter.encode.SampleEncoder;
import io.tsdbwriter.encode.remotewrite.RemoteWrite2Request;
import io.tsdbwriter.encode.remotewrite.RemoteWriteEncoder;
import io.tsdbwriter.encode.vmimport.ImportLineEncoder;
import io.tsdbwriter.encode.vmimport.ImportSampleEncoder;
import io.tsdbwriter.lab.BenchCell;
import io.tsdbwriter.lab.FreshReceiver;
import io.tsdbwriter.lab.VmProbe;
import io.tsdbwriter.metrics.EfficiencyReport;
import io.tsdbwriter.pipeline.PointAmplifier;
import io.tsdbwriter.produce.PointRecords;
import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.wire.ByteBuf;
import io.tsdbwriter.wire.Output;
import io.tsdbwriter.write.RemoteWriteVersion;
import io.tsdbwriter.write.WriteClient;
import io.tsdbwriter.write.WriteOutcome;
import io.tsdbwriter.write.WriteTarget;
import io.tsdbwriter.write.http.HttpAuthConfig;
import io.tsdbwriter.write.http.HttpClientSecurity;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Measures the ceiling of a batch shape: the receiver ingesting requests that were serialized beforehand with the
 * writer's own code path ({@link PointAmplifier} → the shape's encoder: {@link ImportLineEncoder} for import,
 * {@link RemoteWriteEncoder} for remote write, its 2.0 request built by {@link RemoteWrite2Request#fromV1} — cut every
 * {@code batchSamples} samples exactly as the writer cuts its batches, and compressed as the writer compresses them,
 * all before the window), posted with the writer's HTTP client ({@link WriteClient}, the protocol's headers) from as
 * many concurrent requests as the writer has write permits. The client does nothing else, so what limits it is the
 * receiver (and the machine).
 *
 * <p>The bodies come from the start of the same feed the backlog holds, up to {@code poolBytes}; the client cycles
 * through them (a repeated body is ingested again in full: VictoriaMetrics deduplicates only when it merges).
 * One unmeasured pass over all bodies precedes the measured window: it registers the series, which the writer cells
 * that follow find registered too. Not thread-safe; one measurement at a time.
 */
final class CeilingMeter {

    private final WriteTarget endpoint;
    private final VmProbe vm;
    private final Duration settleMax;
    private final HttpClientSecurity security;

    CeilingMeter(WriteTarget endpoint, VmProbe vm, Duration settleMax) {
        this(endpoint, vm, settleMax, HttpClientSecurity.of(HttpAuthConfig.NONE));
    }

    /**
     * @param endpoint where the bodies go (the import URL, or the remote write receiver of a remote write shape)
     * @param vm       the receiver's {@code /metrics} (its CPU, and when it has settled)
     * @param security authentication and TLS of the ceiling's requests (the writers' settings)
     */
    CeilingMeter(WriteTarget endpoint, VmProbe vm, Duration settleMax, HttpClientSecurity security) {
        this.security = security;
        this.endpoint = endpoint;
        this.vm = vm;
        this.settleMax = settleMax;
    }

    /** A pre-serialized body and its samples. */
    record Body(ByteBuf bytes, int samples) {}

    /**
     * Serializes the feed's first points into bodies of {@code batchSamples} samples in the shape's protocol (a
     * remote write body here is the 1.0 message, uncompressed: {@link #measure} prepares it as the writer does), up to
     * {@code poolBytes} in all.
     */
    static List<Body> serialize(
            Iterator<SourcePoint> points,
            BenchCell.Shape shape,
            long sourceIntervalMs,
            int batchSamples,
            long poolBytes) {
        AmplificationPlan plan =
                new AmplificationPlan(shape.timeMultiplier(), shape.instanceMultiplier(), sourceIntervalMs);
        SampleEncoder encoder = shape.remoteWrite()
                ? new RemoteWriteEncoder(plan)
                : new ImportSampleEncoder(new ImportLineEncoder(plan));
        PointAmplifier amplifier = new PointAmplifier(1 << 20, encoder, new SeriesCache(1_000_000));
        List<Body> bodies = new ArrayList<>();
        long total = 0;
        ByteBuf buf = new ByteBuf(1 << 20);
        int samples = 0;
        while (points.hasNext() && total < poolBytes) {
            if (amplifier.decode(PointRecords.encode(points.next())) != null) {
                throw new IllegalStateException(
                        "the writer's decoder refused a bench point: " + amplifier.lastErrorDetail());
            }
            for (int p = 0; p < amplifier.pointCount(); p++) {
                samples += amplifier.encodePoint(p, buf);
                if (samples >= batchSamples) {
                    total += buf.length();
                    bodies.add(new Body(copy(buf), samples));
                    buf.reset();
                    samples = 0;
                }
            }
        }
        if (samples > 0) {
            bodies.add(new Body(copy(buf), samples));
        }
        return bodies;
    }

    private static ByteBuf copy(ByteBuf b) {
        ByteBuf c = new ByteBuf(b.length());
        c.put(b.array(), 0, b.length());
        return c;
    }

    /**
     * Posts every body once, unmeasured (so VictoriaMetrics has registered the series, as the writer cells that follow
     * find them), waits for VictoriaMetrics to settle, then posts {@code bodies} round-robin from {@code concurrency}
     * threads for {@code window}, measured, and waits for it to settle again. A fresh client (the writer's, same
     * settings) per measurement, so no connection left idle by an earlier step is reused.
     */
    CeilingResult measure(BenchCell.Shape shape, List<Body> bodies, int concurrency, Duration window)
            throws IOException, InterruptedException {
        return measure(shape, bodies, concurrency, window, false);
    }

    /**
     * As {@link #measure(BenchCell.Shape, List, int, Duration)}; with {@code firstWrites} (a receiver started empty for
     * this measurement, {@link FreshReceiver}) there is no registering pass and the window posts each body at most
     * once, so every sample measured is one the receiver has not seen: the window ends at {@code window} or when the
     * pool is used up, whichever comes first.
     */
    CeilingResult measure(
            BenchCell.Shape shape, List<Body> bodies, int concurrency, Duration window, boolean firstWrites)
            throws IOException, InterruptedException {
        if (bodies.isEmpty()) {
            throw new IllegalArgumentException("no bodies to post");
        }
        Output output = shape.remoteWrite() ? Output.REMOTE_WRITE : Output.IMPORT;
        RemoteWriteVersion version =
                "remote-write-2".equals(shape.output()) ? RemoteWriteVersion.V2 : RemoteWriteVersion.V1;
        try (WriteClient client = new WriteClient(
                Duration.ofSeconds(90), concurrency, false, output, security, version, RemoteWrite2Request::fromV1)) {
            List<WriteClient.Payload> payloads = new ArrayList<>(bodies.size());
            for (Body b : bodies) {
                payloads.add(client.prepare(b.bytes(), b.samples())); // kept (never released): sent many times
            }
            if (!firstWrites) {
                AtomicLong next = new AtomicLong();
                run(concurrency, () -> {
                    long i;
                    while ((i = next.getAndIncrement()) < bodies.size()) {
                        client.post(endpoint, payloads.get((int) i));
                    }
                });
                vm.settle(settleMax);
            }
            return measure(client, shape, bodies, payloads, concurrency, window, !firstWrites);
        }
    }

    private CeilingResult measure(
            WriteClient client,
            BenchCell.Shape shape,
            List<Body> bodies,
            List<WriteClient.Payload> payloads,
            int concurrency,
            Duration window,
            boolean cycle)
            throws IOException, InterruptedException {
        AtomicLong next = new AtomicLong();
        AtomicLong samples = new AtomicLong();
        AtomicLong requests = new AtomicLong();
        AtomicLong failures = new AtomicLong();
        AtomicLong lastEnd = new AtomicLong();
        long poolSamples = bodies.stream().mapToLong(Body::samples).sum();
        double cpuAtStart = EfficiencyReport.processCpuSeconds();
        double vmAtStart = vm.cpuSeconds();
        long start = System.nanoTime();
        long stopAt = start + window.toNanos();
        run(concurrency, () -> {
            while (System.nanoTime() < stopAt) {
                long n = next.getAndIncrement();
                if (!cycle && n >= bodies.size()) {
                    break;
                }
                int i = (int) (n % bodies.size());
                Body b = bodies.get(i);
                WriteOutcome o = client.post(endpoint, payloads.get(i));
                if (o.isSuccess()) {
                    samples.addAndGet(b.samples());
                    requests.incrementAndGet();
                } else {
                    failures.incrementAndGet();
                }
                lastEnd.accumulateAndGet(System.nanoTime(), Math::max);
            }
        });
        double clientCpu = EfficiencyReport.processCpuSeconds() - cpuAtStart;
        double seconds = (lastEnd.get() - start) / 1e9;
        double vmEnd = vm.settle(settleMax);
        return CeilingResult.builder()
                .shape(shape)
                .concurrency(concurrency)
                .samples(samples.get())
                .requests(requests.get())
                .failures(failures.get())
                .seconds(seconds)
                .vmCpuSeconds(vmEnd - vmAtStart)
                .clientCpuSeconds(clientCpu)
                .poolBodies(bodies.size())
                .poolSamples(poolSamples)
                .build();
    }

    /** Runs {@code task} on {@code threads} platform threads and waits for all. */
    private static void run(int threads, Runnable task) throws InterruptedException {
        List<Thread> started = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            started.add(Thread.ofPlatform().name("ceiling-" + i).start(task));
        }
        for (Thread t : started) {
            t.join();
        }
    }
}
