package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.tsdbwriter.it.support.Components;
import io.tsdbwriter.produce.NodeExporterFiles;
import io.tsdbwriter.produce.PointRecords;
import io.tsdbwriter.produce.RealInput;
import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.verify.ExpectedSamples;
import io.tsdbwriter.verify.ReadBackVerifier;
import io.tsdbwriter.verify.VerificationResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * What the integration tests share: the real input (the 20 node_exporter scrapes), producing it into a topic,
 * the exact read-back from VictoriaMetrics and the committed offsets read back from Kafka.
 */
public final class Scenario {

    /** The instance the real scrapes are attributed to. */
    public static final String INSTANCE = "node-0001";

    private Scenario() {}

    /** Every point of the 20 real scrapes (10140 points). */
    public static List<SourcePoint> realPoints() throws IOException {
        return RealInput.load(NodeExporterFiles.all(), INSTANCE, "node", OptionalLong.empty());
    }

    /**
     * Produces {@code points} in order, {@code pointsPerRecord} per record (1 = one object, more = a JSON array),
     * record i to partition i % partitions.
     */
    public static int produce(
            String bootstrap, String topic, int partitions, List<SourcePoint> points, int pointsPerRecord) {
        List<byte[]> values = new ArrayList<>();
        for (int i = 0; i < points.size(); i += pointsPerRecord) {
            List<SourcePoint> chunk = points.subList(i, Math.min(points.size(), i + pointsPerRecord));
            values.add(pointsPerRecord == 1 ? PointRecords.encode(chunk.get(0)) : PointRecords.encode(chunk));
        }
        produceRaw(bootstrap, topic, partitions, values);
        return values.size();
    }

    /**
     * Sends {@code records} in order and checks every send: not idempotent, one request in flight. On a broker just
     * restarted after kill -9, or to a topic whose leader was just elected, the idempotent producer was seen answered
     * NOT_LEADER_OR_FOLLOWER and then looping on OUT_OF_ORDER_SEQUENCE_NUMBER until {@code delivery.timeout.ms} dropped
     * the batch (a ReplayIT run missing one batch of its first scrape).
     *
     * @throws IllegalStateException when Kafka did not take a record
     */
    public static void produce(String bootstrap, List<ProducerRecord<byte[], byte[]>> records) {
        Map<String, Object> p = new HashMap<>();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false);
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 1);
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 4 << 20);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        List<Future<RecordMetadata>> sent = new ArrayList<>(records.size());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            records.forEach(r -> sent.add(producer.send(r)));
            producer.flush();
            for (Future<RecordMetadata> f : sent) {
                f.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("producing: " + e.getCause(), e);
        }
    }

    /** Every record of partition 0 of {@code topic}, from its start to its end offset (within 30 s). */
    public static List<ConsumerRecord<byte[], byte[]>> consumeAll(String bootstrap, String topic) throws Exception {
        TopicPartition tp = new TopicPartition(topic, 0);
        long end = endOffsets(bootstrap, topic).get(tp);
        Map<String, Object> p = new HashMap<>();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            Instant deadline = Instant.now().plusSeconds(30);
            while (c.position(tp) < end && Instant.now().isBefore(deadline)) {
                c.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        assertThat((long) out.size()).as(topic).isEqualTo(end);
        return out;
    }

    /**
     * Produces raw record values in order, record {@code i} to partition {@code i % partitions}, so that record i
     * has offset {@code i / partitions} in its partition (see {@link #recordsBelow}).
     */
    public static void produceRaw(String bootstrap, String topic, int partitions, List<byte[]> values) {
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>(values.size());
        for (int i = 0; i < values.size(); i++) {
            records.add(new ProducerRecord<>(topic, i % partitions, null, values.get(i)));
        }
        produce(bootstrap, records);
        for (int part = 0; part < partitions; part++) { // exactly what was produced, once: the offset mapping holds
            long expected = (values.size() - part + partitions - 1) / partitions;
            try {
                long end = endOffsets(bootstrap, topic).get(new TopicPartition(topic, part));
                if (end != expected) {
                    throw new AssertionError(topic + "-" + part + " holds " + end + " records, expected " + expected);
                }
            } catch (AssertionError e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** Indices of the records (as produced by {@link #produceRaw}) whose offsets lie below the committed offsets. */
    public static List<Integer> recordsBelow(Map<TopicPartition, Long> committed, int partitions, int records) {
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < records; i++) {
            Long c = committed.get(
                    new TopicPartition(committed.keySet().iterator().next().topic(), i % partitions));
            if (c != null && i / partitions < c) {
                out.add(i);
            }
        }
        return out;
    }

    /** Everything of {@code expected} is in VictoriaMetrics (other series and samples may be there too). */
    public static void assertPresent(String vmUrl, ExpectedSamples expected) throws IOException {
        ReadBackVerifier verifier = new ReadBackVerifier(vmUrl);
        long deadline = System.nanoTime() + READ_BACK_TIMEOUT.toNanos();
        VerificationResult r = verifier.verify(expected);
        while ((r.missingSamples() > 0 || r.missingSeries() > 0) && System.nanoTime() < deadline) {
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException(e);
            }
            r = verifier.verify(expected);
        }
        assertThat(r.missingSamples()).as(r.summary()).isZero();
        assertThat(r.missingSeries()).as(r.summary()).isZero();
    }

    /** The expected samples of {@code points} amplified M × N at a 60 s source interval. */
    public static ExpectedSamples expected(List<SourcePoint> points, int m, int n) {
        return ReadBackVerifier.expected(points, m, n, 60_000);
    }

    /** force_flush + export + exact comparison; fails the test with the verifier's summary on any difference. */
    public static VerificationResult assertExactReadBack(String vmUrl, ExpectedSamples expected) throws IOException {
        return assertExactReadBackWithin(vmUrl, expected, READ_BACK_TIMEOUT);
    }

    /** {@link #assertExactReadBack} waiting up to {@code timeout} for the writers still at work (share groups). */
    public static VerificationResult assertExactReadBackWithin(String vmUrl, ExpectedSamples expected, Duration timeout)
            throws IOException {
        // force_flush on VictoriaMetrics 1.79 does not always make samples searchable at once: poll briefly
        VerificationResult r;
        try {
            r = new ReadBackVerifier(vmUrl).verifyWithin(expected, timeout, Duration.ofMillis(500));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
        assertThat(r.passed()).as(r.summary()).isTrue();
        assertThat(r.foundSamples()).isEqualTo(expected.sampleCount());
        assertThat(r.unexpectedSeries()).isZero();
        return r;
    }

    /** Log end offsets of every partition of {@code topic}. */
    public static Map<TopicPartition, Long> endOffsets(String bootstrap, String topic) throws Exception {
        try (Admin admin = admin(bootstrap)) {
            Set<TopicPartition> tps =
                    admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().stream()
                            .map(p -> new TopicPartition(topic, p.partition()))
                            .collect(Collectors.toSet());
            Map<TopicPartition, OffsetSpec> req =
                    tps.stream().collect(Collectors.toMap(tp -> tp, tp -> OffsetSpec.latest()));
            return admin.listOffsets(req).all().get().entrySet().stream()
                    .collect(Collectors.toMap(
                            Map.Entry::getKey, e -> e.getValue().offset()));
        }
    }

    /** Offsets the group committed for {@code topic}'s partitions (absent partitions left out). */
    public static Map<TopicPartition, Long> committedOffsets(String bootstrap, String group, String topic)
            throws Exception {
        try (Admin admin = admin(bootstrap)) {
            Map<TopicPartition, OffsetAndMetadata> m = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get();
            Map<TopicPartition, Long> out = new HashMap<>();
            m.forEach((tp, om) -> {
                if (tp.topic().equals(topic) && om != null) {
                    out.put(tp, om.offset());
                }
            });
            return out;
        }
    }

    /** The writer's {@code --summary-json}. */
    public static JsonNode summary(Path file) throws IOException {
        return PointRecords.objectMapper().readTree(Files.readAllBytes(file));
    }

    /** Standard {@code run} arguments against a stack. */
    public static List<String> runArgs(
            String bootstrap, String vmUrl, String topic, String group, int m, int n, int p, String... more) {
        List<String> a = new ArrayList<>(List.of(
                "run",
                "--bootstrap-servers",
                bootstrap,
                "--topic",
                topic,
                "--group-id",
                group,
                "--vm-url",
                vmUrl,
                "--time-multiplier",
                Integer.toString(m),
                "--instance-multiplier",
                Integer.toString(n),
                "--parallelism",
                Integer.toString(p),
                "--metrics-port",
                "-1",
                "--report-interval",
                "5s"));
        a.addAll(List.of(more));
        return a;
    }

    private static Admin admin(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return Admin.create(p);
    }

    /**
     * A topic of one scenario and the group that reads it ({@code g-<topic>}).
     *
     * @param records the records produced into it
     */
    public record Fixture(String topic, String group, int records) {}

    private static final AtomicInteger TOPICS = new AtomicInteger();

    /**
     * A fresh topic {@code <name>-<n>} with {@code partitions} partitions holding {@code points}, one point per record
     * (record i in partition i % partitions): each scenario reads back only its own samples.
     */
    public static Fixture realInput(
            Components.KafkaEndpoint kafka, String name, int partitions, List<SourcePoint> points) {
        String topic = name + "-" + TOPICS.incrementAndGet();
        kafka.createTopic(topic, partitions);
        int records = produce(kafka.bootstrapServers(), topic, partitions, points, 1);
        return new Fixture(topic, "g-" + topic, records);
    }

    /** The group's committed offset of every partition of the fixture's topic is its end offset. */
    public static void assertCommittedAtEnd(String bootstrap, Fixture f) throws Exception {
        assertThat(committedOffsets(bootstrap, f.group(), f.topic())).isEqualTo(endOffsets(bootstrap, f.topic()));
    }

    /** Every record of {@code topic} from its beginning, waiting up to 20 s for at least {@code atLeast} of them. */
    public static List<ConsumerRecord<byte[], byte[]>> readAll(String bootstrap, String topic, int atLeast) {
        Map<String, Object> p = new HashMap<>();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p)) {
            List<TopicPartition> tps = c.partitionsFor(topic).stream()
                    .map(i -> new TopicPartition(topic, i.partition()))
                    .toList();
            c.assign(tps);
            c.seekToBeginning(tps);
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (out.size() < atLeast && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(200)).forEach(out::add);
            }
            Map<TopicPartition, Long> end = c.endOffsets(tps);
            while (!tps.stream().allMatch(tp -> c.position(tp) >= end.get(tp)) && System.nanoTime() < deadline) {
                c.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        return out;
    }

    /** How long a read-back may poll for samples to become searchable. */
    public static final Duration READ_BACK_TIMEOUT = Duration.ofSeconds(30);

    /** A generous bound for a child process in these tests. */
    public static final Duration PROCESS_TIMEOUT = Duration.ofMinutes(2);
}
