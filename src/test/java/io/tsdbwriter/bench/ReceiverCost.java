package io.tsdbwriter.bench;

import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.encode.remotewrite.RemoteWrite2Request;
import io.tsdbwriter.encode.remotewrite.RemoteWriteEncoder;
import io.tsdbwriter.it.support.PrometheusServer;
import io.tsdbwriter.lab.SourceFeed;
import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.wire.ByteBuf;
import io.tsdbwriter.write.RemoteWriteVersion;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import org.xerial.snappy.Snappy;

/**
 * The receiver's CPU per million samples of Remote-Write 1.0 against 2.0 requests carrying the same samples (issue 43
 * item 4; scripts/receiver-cost.sh runs it). The samples are bench's real feed ({@link SourceFeed#real}: the
 * node_exporter scrapes of a data directory replicated across instances, M=1, N=1), encoded by
 * {@link RemoteWriteEncoder} into bodies of {@code batch} points as the writer does, the 2.0 requests built from
 * them by {@link RemoteWrite2Request#fromV1}, snappy block; all bodies are built before any receiver starts.
 *
 * <p>Modes: {@code fresh} starts a new Prometheus 3 ({@link PrometheusServer#startCurrent}, out-of-order window 30 d
 * as bench's) per measurement and alternates the versions ABBA over the rounds, so machine load falls on both;
 * {@code repeat} writes the samples twice into one Prometheus, first in one version and then in the other (what
 * bench does when its cells share one receiver), both orders per round. Per measurement it reads the receiver's
 * {@code process_cpu_seconds_total} right before the first request and right after the last answer, checks that
 * the head counted the samples ({@code prometheus_tsdb_head_samples_appended_total} plus the out-of-order ones),
 * and with {@code profileSeconds > 0} saves a CPU profile of the receiver ({@code /debug/pprof/profile}) taken
 * from the first request on.
 *
 * <pre>
 * ReceiverCost DATA_DIR OUT_DIR RECORDS BATCH ROUNDS MODE PROFILE_SECONDS
 * </pre>
 * One line per measurement on stdout; raw profiles as {@code OUT_DIR/<mode>-r<round>-<step>-v<version>.pprof}.
 */
public final class ReceiverCost {

    private static final HttpClient HTTP =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final Duration OUT_OF_ORDER_WINDOW = Duration.ofDays(30);

    private ReceiverCost() {}

    /** The request bodies of one version, snappy block, and their sample count. */
    record Requests(RemoteWriteVersion version, List<byte[]> bodies, long samples, long bytes) {}

    public static void main(String[] args) throws Exception {
        if (args.length != 7) {
            System.err.println(
                    "usage: ReceiverCost DATA_DIR OUT_DIR RECORDS BATCH ROUNDS fresh|repeat PROFILE_SECONDS");
            System.exit(2);
        }
        Path data = Path.of(args[0]);
        Path out = Path.of(args[1]);
        long records = Long.parseLong(args[2]);
        int batch = Integer.parseInt(args[3]);
        int rounds = Integer.parseInt(args[4]);
        String mode = args[5];
        int profileSeconds = Integer.parseInt(args[6]);
        Files.createDirectories(out);
        SourceFeed feed = SourceFeed.real(SourceFeed.promFiles(data), records, null, System.currentTimeMillis());
        Requests[] both = build(feed, batch);
        System.out.printf(
                Locale.ROOT,
                "# %s; batch %d points; 1.0: %d requests, %.2f MB; 2.0: %d requests, %.2f MB (snappy)%n",
                feed.description(),
                batch,
                both[0].bodies().size(),
                both[0].bytes() / 1e6,
                both[1].bodies().size(),
                both[1].bytes() / 1e6);
        System.out.println(
                "mode\tround\tstep\tversion\tsamples\tseconds\tcpu_s\tcpu_s_per_M\thead_appended\tooo_appended\tload");
        for (int r = 0; r < rounds; r++) {
            int first = r % 2; // ABBA: 1.0 first in even rounds
            for (int k = 0; k < 2; k++) {
                int[] order = k == 0 ? new int[] {first, 1 - first} : new int[] {1 - first, first};
                if (mode.equals("fresh")) {
                    measureOn(out, mode, r, k, new int[] {order[0]}, both, profileSeconds);
                } else {
                    measureOn(out, mode, r, k, order, both, profileSeconds);
                }
            }
        }
    }

    private static void measureOn(
            Path out, String mode, int round, int k, int[] versions, Requests[] both, int profileSeconds)
            throws Exception {
        Path dir = out.resolve(mode + "-r" + round + "-" + k);
        try (PrometheusServer p = PrometheusServer.startCurrent(
                dir, OUT_OF_ORDER_WINDOW, "prometheus.WriteRequest", "io.prometheus.write.v2.Request")) {
            Thread.sleep(2000); // let its start-up work settle before the first reading
            for (int step = 0; step < versions.length; step++) {
                Requests q = both[versions[step]];
                int at = versions.length == 1 ? k : k * 2 + step; // the measurement's place in its round
                String name = mode + "-r" + round + "-" + at + "-v" + (versions[step] + 1);
                Map<String, Double> before = metrics(p.url());
                CompletableFuture<HttpResponse<Path>> profile = profileSeconds <= 0
                        ? null
                        : HTTP.sendAsync(
                                HttpRequest.newBuilder(
                                                URI.create(p.url() + "/debug/pprof/profile?seconds=" + profileSeconds))
                                        .build(),
                                HttpResponse.BodyHandlers.ofFile(out.resolve(name + ".pprof")));
                long t0 = System.nanoTime();
                send(p.remoteWriteUrl(), q);
                double seconds = (System.nanoTime() - t0) / 1e9;
                Map<String, Double> after = metrics(p.url());
                double cpu = after.get("process_cpu_seconds_total") - before.get("process_cpu_seconds_total");
                double appended = delta(before, after, "prometheus_tsdb_head_samples_appended_total");
                double ooo = delta(before, after, "prometheus_tsdb_head_out_of_order_samples_appended_total");
                System.out.printf(
                        Locale.ROOT,
                        "%s\t%d\t%d\t%s\t%d\t%.2f\t%.2f\t%.3f\t%.0f\t%.0f\t%s%n",
                        mode,
                        round,
                        at,
                        versions[step] == 0 ? "1.0" : "2.0",
                        q.samples(),
                        seconds,
                        cpu,
                        cpu / (q.samples() / 1e6),
                        appended,
                        ooo,
                        Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
                if (profile != null) {
                    profile.join();
                }
            }
        }
    }

    private static double delta(Map<String, Double> before, Map<String, Double> after, String name) {
        return after.getOrDefault(name, 0.0) - before.getOrDefault(name, 0.0);
    }

    static Requests[] build(SourceFeed feed, int batch) throws IOException {
        RemoteWriteEncoder encoder = new RemoteWriteEncoder(new AmplificationPlan(1, 1, 60_000));
        Map<String, byte[]> series = new HashMap<>();
        List<byte[]> v1 = new ArrayList<>();
        List<byte[]> v2 = new ArrayList<>();
        long[] bytes = new long[2];
        long samples = 0;
        ByteBuf body = new ByteBuf(1 << 20);
        int points = 0;
        for (SourcePoint p : feed) {
            byte[] s = series.computeIfAbsent(p.metric() + p.labels(), x -> {
                TreeMap<String, String> sorted = new TreeMap<>(p.labels());
                String[] names = sorted.keySet().toArray(new String[0]);
                String[] values = sorted.values().toArray(new String[0]);
                return encoder.prepareSeries(p.metric(), names, values, 0, names.length);
            });
            samples += encoder.encodePoint(s, 0, p.timestampMs(), p.value(), body);
            if (++points == batch) {
                flush(body, v1, v2, bytes);
                points = 0;
            }
        }
        if (points > 0) {
            flush(body, v1, v2, bytes);
        }
        return new Requests[] {
            new Requests(RemoteWriteVersion.V1, v1, samples, bytes[0]),
            new Requests(RemoteWriteVersion.V2, v2, samples, bytes[1])
        };
    }

    private static void flush(ByteBuf body, List<byte[]> v1, List<byte[]> v2, long[] bytes) throws IOException {
        byte[] a = Snappy.compress(Arrays.copyOf(body.array(), body.length()));
        ByteBuf two = RemoteWrite2Request.fromV1(body.array(), body.length());
        byte[] b = Snappy.compress(Arrays.copyOf(two.array(), two.length()));
        v1.add(a);
        v2.add(b);
        bytes[0] += a.length;
        bytes[1] += b.length;
        body.reset();
    }

    private static void send(String url, Requests q) throws IOException, InterruptedException {
        for (byte[] b : q.bodies()) {
            HttpResponse<String> r = HTTP.send(
                    HttpRequest.newBuilder(URI.create(url))
                            .header("Content-Type", q.version().contentType())
                            .header("Content-Encoding", "snappy")
                            .header(
                                    "X-Prometheus-Remote-Write-Version",
                                    q.version().versionHeader())
                            .POST(HttpRequest.BodyPublishers.ofByteArray(b))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() / 100 != 2) {
                throw new IllegalStateException(
                        "remote write " + q.version() + " answered " + r.statusCode() + ": " + r.body());
            }
        }
    }

    /** Sums of the receiver's metric families by name (all label sets added). */
    private static Map<String, Double> metrics(String url) throws IOException, InterruptedException {
        String text = HTTP.send(
                        HttpRequest.newBuilder(URI.create(url + "/metrics")).build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        Map<String, Double> m = new HashMap<>();
        for (String line : text.split("\n")) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int brace = line.indexOf('{');
            int space = line.lastIndexOf(' ');
            String name = line.substring(0, brace >= 0 ? brace : line.indexOf(' '));
            m.merge(name, Double.parseDouble(line.substring(space + 1)), Double::sum);
        }
        return m;
    }
}
