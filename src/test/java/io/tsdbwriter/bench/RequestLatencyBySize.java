package io.tsdbwriter.bench;

import io.tsdbwriter.encode.remotewrite.RemoteWrite2Request;
import io.tsdbwriter.lab.BenchCell;
import io.tsdbwriter.lab.SourceFeed;
import io.tsdbwriter.wire.Output;
import io.tsdbwriter.write.RemoteWriteVersion;
import io.tsdbwriter.write.WriteClient;
import io.tsdbwriter.write.WriteTarget;
import io.tsdbwriter.write.http.HttpAuthConfig;
import io.tsdbwriter.write.http.HttpClientSecurity;
import io.tsdbwriter.write.http.NoDelaySocketFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import javax.net.SocketFactory;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * Evidence for issue 43 item 3 (docs/benchmarks-archive.md §15): the latency of one remote write request by its size, with
 * Nagle's algorithm on (OkHttp's default socket) and off (the writer's {@code NoDelaySocketFactory}). Real
 * node_exporter scrapes at M=12, cut into requests of 250 … 40,000 samples, each posted one at a time (no
 * concurrency, so every millisecond is the request's own) to a running receiver.
 *
 * <p>Usage (test classpath): {@code java -cp ... io.tsdbwriter.bench.RequestLatencyBySize DATA_DIR WRITE_URL [REPEATS]},
 * e.g. {@code http://127.0.0.1:8428/api/v1/write}. Prints one line per size and socket: samples, compressed bytes,
 * p50 and p90 latency in ms.
 */
public final class RequestLatencyBySize {

    private RequestLatencyBySize() {}

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        String url = args[1];
        int repeats = args.length > 2 ? Integer.parseInt(args[2]) : 40;
        SourceFeed feed = SourceFeed.real(SourceFeed.promFiles(dir), 200_000, "latency", System.currentTimeMillis());
        WriteTarget target = WriteTarget.remoteWrite(url);
        System.out.printf(Locale.ROOT, "%-8s %8s %10s %9s %9s%n", "socket", "samples", "bytes", "p50 ms", "p90 ms");
        try (WriteClient prep = new WriteClient(
                Duration.ofSeconds(30),
                1,
                false,
                Output.REMOTE_WRITE,
                HttpClientSecurity.of(HttpAuthConfig.NONE),
                RemoteWriteVersion.V1,
                RemoteWrite2Request::fromV1)) {
            for (int samples : List.of(250, 1_000, 2_500, 5_000, 10_000, 20_000, 40_000)) {
                CeilingMeter.Body body = CeilingMeter.serialize(
                                feed.iterator(), new BenchCell.Shape(12, 1, "remote-write", null), 60_000, samples, 1)
                        .get(0);
                WriteClient.Payload p = prep.prepare(body.bytes(), body.samples());
                byte[] wire = Arrays.copyOf(p.bytes(), p.length());
                for (boolean nagle : new boolean[] {true, false}) {
                    OkHttpClient http = new OkHttpClient.Builder()
                            .socketFactory(nagle ? SocketFactory.getDefault() : new NoDelaySocketFactory())
                            .build();
                    double[] ms = new double[repeats];
                    for (int i = -5; i < repeats; i++) { // 5 unmeasured: the connection, the series registered
                        long t0 = System.nanoTime();
                        try (Response r = http.newCall(new Request.Builder()
                                        .url(target.writeUrl())
                                        .post(RequestBody.create(wire, MediaType.get("application/x-protobuf")))
                                        .header("Content-Encoding", "snappy")
                                        .header("X-Prometheus-Remote-Write-Version", "0.1.0")
                                        .build())
                                .execute()) {
                            if (!r.isSuccessful()) {
                                throw new IllegalStateException("HTTP " + r.code());
                            }
                        }
                        if (i >= 0) {
                            ms[i] = (System.nanoTime() - t0) / 1e6;
                        }
                    }
                    Arrays.sort(ms);
                    System.out.printf(
                            Locale.ROOT,
                            "%-8s %8d %10d %9.1f %9.1f%n",
                            nagle ? "nagle" : "nodelay",
                            body.samples(),
                            wire.length,
                            ms[repeats / 2],
                            ms[(int) (repeats * 0.9)]);
                    http.connectionPool().evictAll();
                }
            }
        }
    }
}
