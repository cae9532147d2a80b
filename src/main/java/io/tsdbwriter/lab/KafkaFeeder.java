package io.tsdbwriter.lab;

import io.tsdbwriter.config.KafkaClientConfig;
import io.tsdbwriter.produce.PointRecords;
import io.tsdbwriter.produce.ProducerSettings;
import io.tsdbwriter.produce.SourcePoint;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The bench's Kafka side: creates topics and produces point records (one point per record, as {@code produce}
 * does with its defaults and the same producer settings; JSON point records unless an encoder is given, e.g.
 * {@code OtlpPointRecords} as {@code produce --record-format otlp-points}), either as fast as possible (the pre-loaded backlog)
 * or at a fixed rate while a writer runs (live mode). Not thread-safe; one feeder per thread.
 */
public final class KafkaFeeder implements AutoCloseable {

    private final String bootstrapServers;
    private final KafkaClientConfig kafka;
    private final Admin admin;
    private final Function<SourcePoint, byte[]> encoder;

    /** A feeder of JSON point records ({@link PointRecords}). */
    public KafkaFeeder(KafkaClientConfig kafka) {
        this(kafka, PointRecords::encode);
    }

    /** A feeder whose record values are {@code encoder}'s bytes of one point each. */
    public KafkaFeeder(KafkaClientConfig kafka, Function<SourcePoint, byte[]> encoder) {
        this.kafka = kafka;
        this.encoder = encoder;
        this.bootstrapServers = kafka.bootstrapServers();
        Properties p = kafka.clientPropertiesAsProperties();
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "tsdb-writer-bench-admin");
        this.admin = Admin.create(p);
    }

    /** True when the topic exists. */
    public boolean exists(String topic) throws InterruptedException {
        try {
            return admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot list the topics of " + bootstrapServers + ": " + e.getMessage(), e);
        }
    }

    /** Creates a topic with the broker's default replication factor. */
    public void create(String topic, int partitions) throws InterruptedException {
        try {
            admin.createTopics(List.of(new NewTopic(topic, Optional.of(partitions), Optional.empty())))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException(
                    "cannot create topic " + topic + " on " + bootstrapServers + ": " + e.getMessage(), e);
        }
    }

    /**
     * Bytes of a topic's log on the brokers (the leaders' replicas, {@code describeLogDirs}): what a reader fetches once
     * when it reads the topic once (record batches as stored, compressed when produced compressed); 0 when unknown.
     */
    public long logBytes(String topic) throws InterruptedException {
        try {
            var nodes = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).stream()
                    .map(n -> n.id())
                    .toList();
            var desc = admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(topic);
            Map<TopicPartition, Integer> leaders = new HashMap<>();
            desc.partitions()
                    .forEach(pi -> leaders.put(
                            new TopicPartition(topic, pi.partition()),
                            pi.leader() == null ? -1 : pi.leader().id()));
            long bytes = 0;
            for (var node : admin.describeLogDirs(nodes).descriptions().entrySet()) {
                for (var dir : node.getValue().get(30, TimeUnit.SECONDS).values()) {
                    for (var r : dir.replicaInfos().entrySet()) {
                        if (leaders.getOrDefault(r.getKey(), -2).equals(node.getKey())
                                && !r.getValue().isFuture()) {
                            bytes += r.getValue().size();
                        }
                    }
                }
            }
            return bytes;
        } catch (ExecutionException | TimeoutException e) {
            return 0;
        }
    }

    /** Records in a topic: the sum over partitions of end − beginning offsets. */
    public long size(String topic) throws InterruptedException {
        try {
            var desc = admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(topic);
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
            desc.partitions().forEach(pi -> {
                var tp = new TopicPartition(topic, pi.partition());
                latest.put(tp, OffsetSpec.latest());
                earliest.put(tp, OffsetSpec.earliest());
            });
            long end = 0;
            for (var e :
                    admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).values()) {
                end += e.offset();
            }
            long begin = 0;
            for (var e :
                    admin.listOffsets(earliest).all().get(30, TimeUnit.SECONDS).values()) {
                begin += e.offset();
            }
            return end - begin;
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot read the offsets of " + topic + ": " + e.getMessage(), e);
        }
    }

    /** Counters of one produce: records acknowledged and the first failure. */
    public static final class Sent {
        final AtomicLong acked = new AtomicLong();

        /** Records the broker acknowledged. */
        public long ackedRecords() {
            return acked.get();
        }

        final AtomicLong bytes = new AtomicLong();

        /** Bytes of the record values sent. */
        public long bytesSent() {
            return bytes.get();
        }

        final AtomicReference<Exception> failure = new AtomicReference<>();
    }

    /**
     * Sends {@code max} points from {@code points} (or until {@code stop} says so), one per record encoded by this
     * feeder's encoder, at {@code ratePerSecond} (0 = as fast as possible), and waits for every acknowledgement.
     *
     * @throws IllegalStateException when a send failed
     */
    public Sent produce(
            String topic, Iterator<SourcePoint> points, long max, double ratePerSecond, BooleanSupplier stop) {
        return produceValues(
                topic,
                new Iterator<>() {
                    @Override
                    public boolean hasNext() {
                        return points.hasNext();
                    }

                    @Override
                    public byte[] next() {
                        return encoder.apply(points.next());
                    }
                },
                max,
                ratePerSecond,
                stop);
    }

    /**
     * As {@link #produce}, for record values already encoded (any format the writer reads): sends {@code max} of
     * {@code values} (or until {@code stop} says so, or {@code values} has no next: its {@code hasNext} may block) at
     * {@code ratePerSecond} (0 = as fast as possible), and waits for every acknowledgement.
     *
     * @throws IllegalStateException when a send failed
     */
    public Sent produceValues(
            String topic, Iterator<byte[]> values, long max, double ratePerSecond, BooleanSupplier stop) {
        Properties props = ProducerSettings.of(kafka);
        props.put("client.id", "tsdb-writer-bench");
        Sent sent = new Sent();
        long start = System.nanoTime();
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            long n = 0;
            while (n < max && values.hasNext() && sent.failure.get() == null && !stop.getAsBoolean()) {
                if (ratePerSecond > 0) {
                    long due = start + (long) (n * 1e9 / ratePerSecond);
                    long wait;
                    while ((wait = due - System.nanoTime()) > 0) {
                        LockSupport.parkNanos(wait);
                    }
                    if (stop.getAsBoolean()) {
                        break;
                    }
                }
                byte[] value = values.next();
                producer.send(new ProducerRecord<>(topic, value), (md, e) -> {
                    if (e == null) {
                        sent.acked.incrementAndGet();
                        sent.bytes.addAndGet(value.length);
                    } else {
                        sent.failure.compareAndSet(null, e);
                    }
                });
                n++;
            }
            producer.flush();
        }
        if (sent.failure.get() != null) {
            throw new IllegalStateException(
                    "producing to " + topic + " failed: " + sent.failure.get(), sent.failure.get());
        }
        return sent;
    }

    @Override
    public void close() {
        admin.close();
    }
}
