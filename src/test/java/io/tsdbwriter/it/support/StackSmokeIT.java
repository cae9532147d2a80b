package io.tsdbwriter.it.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Proves the real-component fixtures: a real Kafka broker and a real VictoriaMetrics start, work, survive kill -9 and
 * a restart on the same ports and data, and leave no process behind.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class StackSmokeIT {

    private static final String TOPIC = "smoke";

    @TempDir
    Path dir;

    @Test
    void realKafkaAndVictoriaMetricsWorkAndRecoverFromKillMinus9() throws Exception {
        long kafkaPid;
        long vmPid;
        try (LocalStack stack = LocalStack.start(dir)) {
            KafkaBroker kafka = stack.kafka();
            VictoriaMetrics vm = stack.vm();
            assertThat(kafka.bootstrapServers()).startsWith("127.0.0.1:");
            assertThat(vm.url()).startsWith("http://127.0.0.1:");

            kafka.createTopic(TOPIC, 3);
            try (Admin admin = Admin.create(kafka.adminProperties())) {
                assertThat(admin.describeTopics(List.of(TOPIC))
                                .allTopicNames()
                                .get(30, TimeUnit.SECONDS)
                                .get(TOPIC)
                                .partitions())
                        .hasSize(3);
            }
            assertThat(produce(kafka, 2, "before-crash").partition()).isEqualTo(2);
            assertThat(consumeAsGroupAndCommit(kafka, 1)).containsExactly("before-crash");

            long now = System.currentTimeMillis();
            String first = line(1, now);
            assertThat(vm.importLines(first)).isEqualTo(204);
            assertThat(vm.awaitExport("x", lines -> !lines.isEmpty(), Duration.ofSeconds(30)))
                    .containsExactly(first);

            // Kafka: kill -9, restart on the same ports and data.
            long oldKafkaPid = kafka.pid();
            kafka.kill();
            assertThat(kafka.isRunning()).isFalse();
            assertThat(isAlive(oldKafkaPid)).isFalse();
            kafka.restart();
            assertThat(kafka.pid()).isNotEqualTo(oldKafkaPid);
            produce(kafka, 2, "after-crash");
            // The committed group offset survived the crash: the group only gets the new record ...
            assertThat(consumeAsGroupAndCommit(kafka, 1)).containsExactly("after-crash");
            // ... and the acknowledged record before the crash is still in the log.
            assertThat(readPartition(kafka, 2, 2)).containsExactly("before-crash", "after-crash");

            // VictoriaMetrics: kill -9, restart on the same port and data.
            long oldVmPid = vm.pid();
            vm.kill();
            assertThat(vm.isRunning()).isFalse();
            assertThat(isAlive(oldVmPid)).isFalse();
            vm.restart();
            assertThat(vm.pid()).isNotEqualTo(oldVmPid);
            assertThat(vm.importLines(line(2, now + 1000))).isEqualTo(204);
            String both = "{\"metric\":{\"__name__\":\"x\",\"a\":\"b\"},\"values\":[1,2],\"timestamps\":[" + now + ","
                    + (now + 1000) + "]}";
            // The sample flushed before the crash is still there, next to the new one.
            assertThat(vm.awaitExport("x", lines -> lines.equals(List.of(both)), Duration.ofSeconds(30)))
                    .containsExactly(both);

            // A clean stop/restart keeps the data too.
            vm.restart();
            assertThat(vm.awaitExport("{__name__=\"x\",a=\"b\"}", lines -> !lines.isEmpty(), Duration.ofSeconds(30)))
                    .containsExactly(both);

            kafkaPid = kafka.pid();
            vmPid = vm.pid();
        }
        assertThat(isAlive(kafkaPid)).as("broker process after close").isFalse();
        assertThat(isAlive(vmPid)).as("victoria-metrics process after close").isFalse();
    }

    @Test
    void writerProcessRunsTheJarAndCapturesItsOutput() {
        Path jar = WriterProcess.jar();
        assertThat(jar).as("failsafe runs after package, so the jar exists").exists();
        try (WriterProcess writer = WriterProcess.start(dir.resolve("writer.log"), List.of("--help"))) {
            writer.waitFor(Duration.ofMinutes(1));
            assertThat(writer.isAlive()).isFalse();
            assertThat(writer.output()).isNotBlank();
            assertThat(Files.exists(writer.logFile())).isTrue();
        }
    }

    @Test
    void freePortsAreDistinctAndBindable() {
        List<FreePorts.Reservation> ports = FreePorts.reserve(20);
        try {
            assertThat(ports.stream().map(FreePorts.Reservation::port).distinct())
                    .hasSize(20);
            assertThat(ports)
                    .allSatisfy(r -> assertThat(FreePorts.isBindable(r.port())).isTrue());
        } finally {
            ports.forEach(FreePorts.Reservation::close);
        }
    }

    private static String line(int value, long timestamp) {
        return "{\"metric\":{\"__name__\":\"x\",\"a\":\"b\"},\"values\":[" + value + "],\"timestamps\":[" + timestamp
                + "]}";
    }

    private static boolean isAlive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }

    private static RecordMetadata produce(KafkaBroker kafka, int partition, String value) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            return producer.send(new ProducerRecord<>(TOPIC, partition, "k", value))
                    .get(60, TimeUnit.SECONDS);
        }
    }

    private static Properties consumerProps(KafkaBroker kafka) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return props;
    }

    /** Subscribes as group "smoke-group", reads {@code count} records, commits, leaves. */
    private static List<String> consumeAsGroupAndCommit(KafkaBroker kafka, int count) {
        Properties props = consumerProps(kafka);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "smoke-group");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.subscribe(List.of(TOPIC));
            List<String> values = poll(consumer, count);
            consumer.commitSync(Duration.ofSeconds(30));
            return values;
        }
    }

    private static List<String> readPartition(KafkaBroker kafka, int partition, int count) {
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerProps(kafka))) {
            TopicPartition tp = new TopicPartition(TOPIC, partition);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            return poll(consumer, count);
        }
    }

    private static List<String> poll(KafkaConsumer<String, String> consumer, int count) {
        List<String> values = new ArrayList<>();
        Instant deadline = Instant.now().plus(Duration.ofSeconds(90));
        while (values.size() < count && Instant.now().isBefore(deadline)) {
            for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
                values.add(record.value());
            }
        }
        // a short extra poll: nothing more than expected may arrive
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(300))) {
            values.add(record.value());
        }
        return values;
    }
}
