package io.tsdbwriter.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.amplify.SeriesCache;
import io.tsdbwriter.amplify.SeriesLimiter;
import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.Decoded;
import io.tsdbwriter.decode.NativeHistogramMessage;
import io.tsdbwriter.decode.promremotewrite.RemoteWriteDecoder;
import io.tsdbwriter.encode.remotewrite.RemoteWriteEncoder;
import io.tsdbwriter.encode.vmimport.ImportLineEncoder;
import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.pipeline.PointAmplifier;
import io.tsdbwriter.tenant.TenantRouting;
import io.tsdbwriter.tenant.TenantSyntax;
import io.tsdbwriter.write.WriteBatch;
import io.tsdbwriter.write.WriteOutcome;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/**
 * The record core tells its acknowledgement side, in order, every step a record's points take: the first batch opening,
 * each point joining a batch, each batch handed on (with its lane and first offset) once full or flushed, and a record
 * refused whole — malformed, or without a tenant.
 */
class RecordCoreTest {

    private static final long T = 1_795_300_800_000L;
    private final WriterMeters meters = new WriterMeters(new SimpleMeterRegistry());

    private static ConsumerRecord<byte[], byte[]> record(long offset, String value, String tenant) {
        return record(offset, value, tenant, T, TimestampType.CREATE_TIME);
    }

    private static ConsumerRecord<byte[], byte[]> record(
            long offset, String value, String tenant, long timestamp, TimestampType type) {
        RecordHeaders headers = new RecordHeaders();
        if (tenant != null) {
            headers.add(new RecordHeader("tenant", tenant.getBytes(StandardCharsets.UTF_8)));
        }
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        return new ConsumerRecord<>(
                "t", 0, offset, timestamp, type, 0, bytes.length, null, bytes, headers, Optional.empty());
    }

    private static ConsumerRecord<byte[], byte[]> point(long offset, String host, String tenant) {
        return record(
                offset,
                "{\"metric\":\"cpu\",\"timestamp\":" + (T + offset) + ",\"value\":1,\"dimensions\":{\"host\":\"" + host
                        + "\"}}",
                tenant);
    }

    /** An acknowledgement side that writes down what it is told. */
    private static final class Told implements RecordCore.Acknowledgement<ConsumerRecord<byte[], byte[]>, Void> {
        final List<String> events = new ArrayList<>();
        /** The record time ({@link WriteBatch#recordTimeMs()}) of each batch handed on. */
        final List<Long> batchTimes = new ArrayList<>();
        /** Each batch handed on: its samples, native histograms and their buckets. */
        final List<String> batchHistograms = new ArrayList<>();

        @Override
        public ConsumerRecord<byte[], byte[]> record(ConsumerRecord<byte[], byte[]> source) {
            return source;
        }

        @Override
        public void firstBatchOpens(long offset) {
            events.add("opens " + offset);
        }

        @Override
        public void joins(ConsumerRecord<byte[], byte[]> source, WriteBatch<ConsumerRecord<byte[], byte[]>, Void> b) {
            events.add("joins " + source.offset() + " at " + b.points());
        }

        @Override
        public void handOn(WriteBatch<ConsumerRecord<byte[], byte[]>, Void> batch, int lane, long firstOffset) {
            events.add("hand lane " + lane + " from " + firstOffset + ": " + batch.points() + " points");
            batchTimes.add(batch.recordTimeMs());
            batchHistograms.add(batch.samples() + " samples, " + batch.histograms() + " histograms, "
                    + batch.histogramBuckets() + " buckets");
        }

        @Override
        public void refusedWhole(ConsumerRecord<byte[], byte[]> source, String reason, String detail) {
            events.add("refused " + source.offset() + " " + reason);
        }

        @Override
        public void written(WriteBatch<ConsumerRecord<byte[], byte[]>, Void> batch) {}

        @Override
        public void rejected(
                WriteBatch<ConsumerRecord<byte[], byte[]>, Void> batch,
                List<Rejection<ConsumerRecord<byte[], byte[]>>> rejections) {}

        @Override
        public void gaveUp(WriteBatch<ConsumerRecord<byte[], byte[]>, Void> batch, WriteOutcome outcome) {}

        @Override
        public void abandoned(WriteBatch<ConsumerRecord<byte[], byte[]>, Void> batch) {}
    }

    private RecordCore<ConsumerRecord<byte[], byte[]>, Void> core(Told told, int lanes, TenantRouting tenants) {
        PointAmplifier amplifier = new PointAmplifier(
                        1 << 20,
                        new ImportLineEncoder(AmplificationPlan.of(1, 1, Duration.ofSeconds(60))),
                        new SeriesCache(100))
                .tenants(tenants);
        return new RecordCore<>(told, topic -> amplifier, 2, lanes, null, tenants, new DecodeErrorLog(meters), meters);
    }

    @Test
    void aBatchCountsTheNativeHistogramsOfItsPointsAndTheirBucketsMTimesNCopiesEach() throws Exception {
        Told told = new Told();
        PointAmplifier amplifier = new PointAmplifier(
                new RemoteWriteDecoder(1 << 20, Decoded.ANY_TIME),
                new RemoteWriteEncoder(new AmplificationPlan(2, 3, 60_000)),
                new SeriesCache(100));
        RecordCore<ConsumerRecord<byte[], byte[]>, Void> core = new RecordCore<>(
                told, topic -> amplifier, 1000, 1, null, TenantRouting.NONE, new DecodeErrorLog(meters), meters);
        byte[] histogram = // spans of 2 and 3 buckets
                NativeHistogramMessage.integer(
                        9, 4, 3, 1e-128, 1, new int[] {-2, 2, 1, 3}, new long[] {1, 1, 0, 1, 1}, T);
        byte[] value = NativeHistogramMessage.writeRequest(histogram);
        core.process(new ConsumerRecord<>(
                "t",
                0,
                0,
                T,
                TimestampType.CREATE_TIME,
                0,
                value.length,
                null,
                value,
                new RecordHeaders(),
                Optional.empty()));
        core.flush();

        assertThat(told.batchHistograms).containsExactly("6 samples, 6 histograms, 30 buckets");
    }

    @Test
    void eachStepOfARecordIsToldToItsAcknowledgementSide() throws Exception {
        Told told = new Told();
        RecordCore<ConsumerRecord<byte[], byte[]>, Void> core = core(told, 0, TenantRouting.NONE);
        core.process(point(0, "a", null));
        core.process(point(1, "b", null));
        core.process(record(2, "not json", null));
        core.process(point(3, "c", null));
        assertThat(core.openBatchAgeNanos()).as("offset 3's batch is open").isPositive();
        core.flush();
        assertThat(core.openBatchAgeNanos()).isZero();

        assertThat(told.events)
                .containsExactly(
                        "opens 0",
                        "joins 0 at 0",
                        "joins 1 at 1",
                        "hand lane 0 from 0: 2 points",
                        "refused 2 " + DecodeError.INVALID_JSON.tag(),
                        "opens 3",
                        "joins 3 at 0",
                        "hand lane 0 from 3: 1 points");
        assertThat(meters.recordsConsumed.count()).isEqualTo(4);
        assertThat(meters.pointsDecoded.count()).isEqualTo(3);
        assertThat(meters.samplesExpected.count()).isEqualTo(3);
    }

    @Test
    void aPointPastTheSeriesLimitIsCountedAndItsRecordJoinsItsBatchAsDone() throws Exception {
        Told told = new Told();
        PointAmplifier amplifier = new PointAmplifier(
                        1 << 20,
                        new ImportLineEncoder(AmplificationPlan.of(1, 1, Duration.ofSeconds(60))),
                        new SeriesCache(100))
                .seriesLimits(new SeriesLimiter(2, 0, () -> T));
        RecordCore<ConsumerRecord<byte[], byte[]>, Void> core = new RecordCore<>(
                told, topic -> amplifier, 10, 0, null, TenantRouting.NONE, new DecodeErrorLog(meters), meters);
        core.process(point(0, "a", null));
        core.process(point(1, "b", null));
        core.process(point(2, "c", null));
        core.process(point(3, "a", null));
        core.flush();

        assertThat(told.events)
                .as("offset 2 is handed on with its batch: done, never refused")
                .containsExactly(
                        "opens 0",
                        "joins 0 at 0",
                        "joins 1 at 1",
                        "joins 2 at 2",
                        "joins 3 at 3",
                        "hand lane 0 from 0: 4 points");
        assertThat(meters.seriesLimitDropped()).containsEntry("hourly", 1L).containsEntry("daily", 0L);
        assertThat(meters.samplesExpected.count())
                .as("the dropped sample is not expected")
                .isEqualTo(3);
        assertThat(meters.decodeErrors()).isZero();
    }

    @Test
    void aRecordWithoutItsTenantHeaderIsRefusedWholeAndNotDecoded() throws Exception {
        Told told = new Told();
        RecordCore<ConsumerRecord<byte[], byte[]>, Void> core =
                core(told, 0, TenantRouting.parse("header:tenant", null, null, TenantSyntax.ACCOUNT_ID));
        core.process(point(0, "a", null));
        core.process(point(1, "b", "1"));
        core.flush();

        assertThat(told.events)
                .containsExactly(
                        "refused 0 " + DecodeError.MISSING_TENANT.tag(),
                        "opens 1",
                        "joins 1 at 0",
                        "hand lane 0 from 1: 1 points");
        assertThat(meters.recordsConsumed.count()).isEqualTo(2);
        assertThat(meters.pointsDecoded.count())
                .as("the refused record is not decoded")
                .isEqualTo(1);
    }

    @Test
    void underPerSeriesOrderEachLaneHasItsOwnBatchAndTheFirstOpeningIsToldOnce() throws Exception {
        Told told = new Told();
        RecordCore<ConsumerRecord<byte[], byte[]>, Void> core = core(told, 64, TenantRouting.NONE);
        for (int i = 0; i < 8; i++) {
            core.process(point(i, "host" + i, null));
        }
        core.flush();

        assertThat(told.events).filteredOn(e -> e.startsWith("opens")).containsExactly("opens 0");
        List<String> hands =
                told.events.stream().filter(e -> e.startsWith("hand")).toList();
        assertThat(hands).as("8 series in 64 lanes: more than one lane").hasSizeGreaterThan(1);
        assertThat(hands.stream()
                        .mapToInt(h -> Integer.parseInt(h.replaceAll(".*: (\\d+) points", "$1")))
                        .sum())
                .as("every point handed on once")
                .isEqualTo(8);
    }

    private static ConsumerRecord<byte[], byte[]> timed(long offset, long timestamp, TimestampType type) {
        return record(
                offset,
                "{\"metric\":\"cpu\",\"timestamp\":" + (T + offset) + ",\"value\":1,\"dimensions\":{\"host\":\"h"
                        + offset + "\"}}",
                null,
                timestamp,
                type);
    }

    @Test
    void eachBatchCarriesItsOldestRecordsKafkaTimestampCreateTimeOrLogAppendTime() throws Exception {
        Told told = new Told();
        RecordCore<ConsumerRecord<byte[], byte[]>, Void> core = core(told, 0, TenantRouting.NONE);
        core.process(timed(0, T + 10, TimestampType.CREATE_TIME)); // a producer's clock: not in order
        core.process(timed(1, T, TimestampType.CREATE_TIME));
        core.process(timed(2, T + 5_000, TimestampType.LOG_APPEND_TIME)); // the broker's append time
        core.process(timed(3, T + 5_001, TimestampType.LOG_APPEND_TIME));
        long before = System.currentTimeMillis();
        core.process(timed(4, -1, TimestampType.NO_TIMESTAMP_TYPE)); // an old message format: the read time
        core.flush();
        long after = System.currentTimeMillis();

        assertThat(told.batchTimes).hasSize(3);
        assertThat(told.batchTimes.get(0)).as("the oldest of its records").isEqualTo(T);
        assertThat(told.batchTimes.get(1)).isEqualTo(T + 5_000);
        assertThat(told.batchTimes.get(2)).isBetween(before, after);
    }

    @Test
    void inAReplayEachBatchIsMeasuredFromTheTimeItsFirstRecordWasRead() throws Exception {
        meters.ingestDelay.measureFromReadTime();
        Told told = new Told();
        RecordCore<ConsumerRecord<byte[], byte[]>, Void> core = core(told, 0, TenantRouting.NONE);
        long before = System.currentTimeMillis();
        core.process(timed(0, T - 86_400_000, TimestampType.LOG_APPEND_TIME)); // a day old: the window's past
        core.process(timed(1, T - 86_400_000, TimestampType.CREATE_TIME));
        long after = System.currentTimeMillis();

        assertThat(told.batchTimes).hasSize(1);
        assertThat(told.batchTimes.get(0)).isBetween(before, after);
    }
}
