package io.tsdbwriter.bench;

import io.tsdbwriter.decode.DecoderBenchmark;
import io.tsdbwriter.decode.InputFormat;
import io.tsdbwriter.decode.prometheus.PrometheusTextParser;
import io.tsdbwriter.produce.NodeExporterFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Pre-loads a one-partition topic with at least {@code samples} samples in one input format, for the per-format
 * relay benchmark ({@code scripts/bench-formats.sh}): the first node_exporter scrape of {@code examples/data}
 * (about 500 series), repeated one minute apart back from now until the count is reached, in records of 50 lines
 * or series (prometheus: one scrape per record, its time the record's Kafka timestamp), as
 * {@link DecoderBenchmark#encode} writes each format. Producer compression lz4 (to spare the shared disk).
 *
 * <p>Usage: {@code FormatBacklog BOOTSTRAP TOPIC FORMAT SAMPLES}; prints the number of samples produced.
 */
public final class FormatBacklog {

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[1];
        InputFormat format = InputFormat.parse(args[2]);
        long target = Long.parseLong(args[3]);
        Path file = NodeExporterFiles.first();
        List<PrometheusTextParser.Sample> samples =
                PrometheusTextParser.parse(file).samples();
        byte[] scrape = Files.readAllBytes(file);
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
        }
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 20);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 1 << 20);
        p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, 8 << 20);
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        int replicas = (int) ((target + samples.size() - 1) / samples.size());
        long newest = System.currentTimeMillis() / 60_000 * 60_000 - 60_000;
        long produced = 0;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(p)) {
            for (int r = replicas - 1; r >= 0; r--) {
                long ts = newest - r * 60_000L;
                if (format == InputFormat.PROMETHEUS) {
                    producer.send(new ProducerRecord<>(topic, 0, ts, null, scrape));
                } else {
                    List<Long> times = Collections.nCopies(samples.size(), ts);
                    for (int i = 0; i < samples.size(); i += DecoderBenchmark.LINES_PER_RECORD) {
                        int to = Math.min(samples.size(), i + DecoderBenchmark.LINES_PER_RECORD);
                        producer.send(new ProducerRecord<>(
                                topic,
                                0,
                                ts,
                                null,
                                DecoderBenchmark.encode(
                                        format, samples.subList(i, to), new ArrayList<>(times.subList(i, to)))));
                    }
                }
                produced += samples.size();
            }
            producer.flush();
        }
        System.out.println(produced);
        System.out.flush();
    }
}
