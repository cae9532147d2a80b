package io.tsdbwriter.bench;

import io.tsdbwriter.bench.RelayPeers.Peer;
import io.tsdbwriter.bench.RelayPeers.Row;
import io.tsdbwriter.lab.BenchCell;
import io.tsdbwriter.lab.FreshReceiver;
import io.tsdbwriter.lab.KafkaFeeder;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import okhttp3.OkHttpClient;

/**
 * {@code bench --floor} and {@code --peer}: after the grid, over the same points, the bare Kafka consumer's row and each
 * peer's rows under our relay cells' (M = N = 1), with each relay row's ratios to them.
 *
 * <p>Each peer runs once per receiver the grid's cells wrote to: a fresh TSDB of the cells' kind when they got one
 * ({@code --victoria-metrics-binary}, {@code --prometheus-binary}; then its samples are read back, {@link StoredSamples},
 * before the TSDB goes), else the run's ({@code --vm-url} for Telegraf, the run's remote write URL for the Collector; not
 * read back, since the cells' samples are there too). Telegraf writes InfluxDB line protocol, which Prometheus does not
 * take: it runs into VictoriaMetrics only. The Collector reads the bench's topic of OTLP records; Telegraf, which has no
 * OTLP parser, reads {@code <topic>-json}, the same points as JSON point records, produced here when missing (or the
 * bench's topic itself when that holds JSON records). Not thread-safe; one per run.
 */
public final class PeerComparison {

    /** How long a count of the samples read back below the points relayed is read again. */
    static final Duration SETTLE = Duration.ofSeconds(30);

    private final BenchRunner.Settings s;
    private final Map<Peer, Path> peers;
    private final boolean floor;
    private final PrintStream out;

    /**
     * @param settings the run's settings (the floor's JVM is the writers': {@code javaCommand}, {@code jar},
     *                 {@code writerJvmOptions})
     * @param peers    each peer's binary, in the order they run
     * @param floor    {@code --floor}: run the bare consumer first
     * @param out      where progress, the table and the ratios go
     */
    public PeerComparison(BenchRunner.Settings settings, Map<Peer, Path> peers, boolean floor, PrintStream out) {
        this.s = settings;
        this.peers = new LinkedHashMap<>(peers);
        this.floor = floor;
        this.out = out;
    }

    /**
     * The receivers the peers run into: the fresh TSDB kinds of the grid's shapes, in the grid's order; an empty
     * Optional stands for the run's own receiver.
     */
    static List<Optional<FreshReceiver.Kind>> receivers(BenchRunner.Settings s) {
        Set<Optional<FreshReceiver.Kind>> kinds = new LinkedHashSet<>();
        for (BenchCell.Shape shape : BenchGrid.shapes(s.cells())) {
            kinds.add(Optional.ofNullable(s.freshReceiver(shape)));
        }
        return List.copyOf(kinds);
    }

    /** The name of Telegraf's topic: the bench's when it holds JSON records, else {@code <topic>-json}. */
    static String telegrafTopic(BenchRunner.Settings s) {
        return s.otlpRecords() ? s.topic() + "-json" : s.topic();
    }

    /**
     * One line per relay row: its CPU per point against the floor's and each peer's ({@code peer ÷ writer}).
     */
    static List<String> ratios(List<Row> writerRows, Row floorRow, List<Row> peerRows) {
        List<String> lines = new ArrayList<>();
        for (Row w : writerRows) {
            StringBuilder line = new StringBuilder(w.name()).append(':');
            if (floorRow != null) {
                line.append(String.format(
                        Locale.ROOT,
                        " writer ÷ floor %.2f× CPU per point (target ≤ 2.0);",
                        w.cpuPerMillion() / floorRow.cpuPerMillion()));
            }
            for (Row p : peerRows) {
                if (p.name().startsWith(TelegrafPeer.ROW_NAME)) {
                    line.append(String.format(
                            Locale.ROOT,
                            " Telegraf%s ÷ writer %.1f× (target ≥ 8 on 5 M points, ≥ 10 on 10 M);",
                            p.name().substring(TelegrafPeer.ROW_NAME.length()),
                            p.cpuPerMillion() / w.cpuPerMillion()));
                } else {
                    line.append(String.format(
                            Locale.ROOT,
                            " Collector%s ÷ writer %.1f×;",
                            p.name().substring(CollectorPeer.ROW_NAME.length()),
                            p.cpuPerMillion() / w.cpuPerMillion()));
                }
            }
            lines.add(line.toString());
        }
        return lines;
    }

    /**
     * Runs the floor and the peers, prints the table and the ratios.
     *
     * @return 0, or 1 when the topic's end is unreadable or the floor or a peer failed or did not store every sample
     */
    public int run() throws IOException, InterruptedException {
        long records;
        try (KafkaFeeder kafka = new KafkaFeeder(s.kafkaClient())) {
            try {
                records = kafka.size(s.topic());
            } catch (IllegalStateException e) {
                out.println("bench: peer: cannot read the end of " + s.topic() + ": " + e.getMessage());
                return 1;
            }
        }
        // OTLP records hold a scrape each: the topic holds the feed's points in fewer records
        long points = s.otlpRecords() ? s.feed().records() : records;
        List<Row> writerRows = RelayPeers.writerRows(s.workDir());
        List<Row> rows = new ArrayList<>(writerRows);
        Row floorRow = null;
        List<Row> peerRows = new ArrayList<>();
        int rc = 0;
        if (floor) {
            out.printf("bench: floor: a bare KafkaConsumer reading the %,d records of %s ...%n", records, s.topic());
            try {
                floorRow = ConsumerFloor.run(
                        s.javaCommand(),
                        s.writerJvmOptions(),
                        s.jar(),
                        s.bootstrapServers(),
                        s.kafkaClient().clientPropertiesAsProperties(),
                        s.topic(),
                        s.workDir().resolve("floor"),
                        s.cellTimeout(),
                        s.placement().placement());
                if (points != records) {
                    floorRow = new Row(
                            floorRow.name(),
                            points,
                            floorRow.cpuSeconds(),
                            floorRow.elapsedSeconds(),
                            floorRow.peakRssBytes());
                }
                rows.add(floorRow);
            } catch (IOException e) {
                out.println("bench: floor failed: " + e.getMessage());
                rc = 1;
            }
        }
        OkHttpClient http = new OkHttpClient.Builder()
                .readTimeout(60, TimeUnit.SECONDS)
                .callTimeout(120, TimeUnit.SECONDS)
                .build();
        try {
            for (Map.Entry<Peer, Path> peer : peers.entrySet()) {
                for (Optional<FreshReceiver.Kind> receiver : receivers(s)) {
                    Row row = runPeer(peer.getKey(), peer.getValue(), receiver.orElse(null), records, points, http);
                    if (row == null) {
                        rc = peer.getKey() == Peer.TELEGRAF && receiver.orElse(null) == FreshReceiver.Kind.PROMETHEUS
                                ? rc
                                : 1;
                        continue;
                    }
                    if (row.stored() >= 0 && row.stored() != row.points()) {
                        rc = 1;
                    }
                    peerRows.add(row);
                    rows.add(row);
                }
            }
        } finally {
            http.dispatcher().executorService().shutdown();
            http.connectionPool().evictAll();
        }
        out.println();
        List<String> against = new ArrayList<>();
        if (floor) {
            against.add("floor");
        }
        if (!peers.isEmpty()) {
            against.add(peers.size() == 1 ? "peer" : "peers");
        }
        out.println("Relay vs " + String.join(" and ", against)
                + ", same points, same run (whole process: start, JIT and all; points/s from the start of consuming for"
                + " ours and the floor, from process start for the peers; stored: samples read back from a receiver of"
                + " its own):");
        out.print(RelayPeers.table(rows));
        ratios(writerRows, floorRow, peerRows).forEach(out::println);
        return rc;
    }

    /**
     * One peer into one receiver (null: the run's) over the bench's {@code records} records holding {@code points}
     * points; null when it failed or cannot write there (said why).
     */
    private Row runPeer(Peer peer, Path binary, FreshReceiver.Kind kind, long records, long points, OkHttpClient http)
            throws IOException, InterruptedException {
        if (peer == Peer.TELEGRAF && kind == FreshReceiver.Kind.PROMETHEUS) {
            out.println("bench: peer telegraf: not into Prometheus (Telegraf writes InfluxDB line protocol here; the"
                    + " remote write serializer needs outputs.http, which scripts/lib.sh does not build)");
            return null;
        }
        String topic = s.topic();
        if (peer == Peer.TELEGRAF && s.otlpRecords()) {
            topic = telegrafTopic(s);
            records = jsonTopic(topic, points);
            points = records;
        }
        String dir = "peer-" + peer.label() + (kind == null ? "" : "-" + kind.label());
        out.printf(
                "bench: peer %s (%s): consuming the %,d records of %s%s ...%n",
                peer.label(), binary, records, topic, kind == null ? "" : " into a new " + kind.displayName());
        FreshReceiver receiver = kind == null
                ? null
                : FreshReceiver.start(
                        kind,
                        s.binary(kind),
                        s.workDir(),
                        dir + "-receiver",
                        s.placement().placement().tsdbCpus(),
                        http,
                        s.prometheusOutOfOrderWindow());
        try {
            Row row;
            try {
                row = peer == Peer.TELEGRAF
                        ? TelegrafPeer.run(
                                binary,
                                s.kafkaClient(),
                                topic,
                                points,
                                receiver == null ? s.vmUrl() : receiver.url(),
                                s.workDir().resolve(dir),
                                s.cellTimeout(),
                                out,
                                s.placement().placement())
                        : CollectorPeer.run(
                                binary,
                                s.kafkaClient(),
                                topic,
                                records,
                                points,
                                receiver == null ? s.remoteWriteUrl() : receiver.remoteWriteUrl(),
                                s.workDir().resolve(dir),
                                s.cellTimeout(),
                                out,
                                s.placement().placement());
            } catch (IOException e) {
                out.println("bench: peer " + peer.label() + " failed: " + e.getMessage());
                return null;
            }
            if (receiver == null) {
                return row;
            }
            long stored = new StoredSamples(http).count(receiver.url(), row.points(), SETTLE);
            out.printf(
                    "bench: peer %s: %,d samples read back from its %s (%,d points relayed)%n",
                    peer.label(), stored, kind.displayName(), row.points());
            return new Row(
                            row.name() + " → " + kind.displayName(),
                            row.points(),
                            row.cpuSeconds(),
                            row.elapsedSeconds(),
                            row.peakRssBytes())
                    .withStored(stored);
        } finally {
            if (receiver != null) {
                receiver.close();
            }
        }
    }

    /** Telegraf's topic of JSON point records: produced from the bench's feed unless it exists; its record count. */
    private long jsonTopic(String topic, long records) throws InterruptedException {
        try (KafkaFeeder json = new KafkaFeeder(s.kafkaClient())) {
            if (!json.exists(topic)) {
                json.create(topic, s.partitions());
                out.printf(
                        "bench: peer telegraf: producing the %,d points of %s as JSON point records to %s (Telegraf has"
                                + " no OTLP parser) ...%n",
                        records, s.topic(), topic);
                json.produce(topic, s.feed().iterator(), records, 0, () -> false);
            }
            return json.size(topic);
        }
    }
}
