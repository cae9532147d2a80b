package io.tsdbwriter.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.write.WriteBatch;
import io.tsdbwriter.write.WriteListener.Rejection;
import io.tsdbwriter.write.WriteOutcome;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * The out-of-order refusal is named with its fix; other refusals are not. A refusal of records read again (done before:
 * a rewind, a rebalance, a restart) as out of order or duplicate is the repeat's: counted as such, not failed.
 */
class RefusedSamplesTest {

    private static ConsumerRecord<byte[], byte[]> record(long offset) {
        return new ConsumerRecord<>("t", 0, offset, null, new byte[] {1});
    }

    private static Rejection<ConsumerRecord<byte[], byte[]>> refused(long offset, String detail) {
        return new Rejection<>(record(offset), 12, new WriteOutcome(WriteOutcome.Kind.REJECTED, 400, -1, detail));
    }

    @Test
    void aReadAgainRecordRefusedAsOutOfOrderOrDuplicateIsARepeatNotAFailure() {
        WriterMeters meters = new WriterMeters(new SimpleMeterRegistry());
        List<WriteBatch<ConsumerRecord<byte[], byte[]>, Void>> done = new ArrayList<>();
        RefusedSamples<ConsumerRecord<byte[], byte[]>, Void> refused =
                new RefusedSamples<>(meters, null, r -> r, done::add, "kept", r -> r.offset() < 100);
        WriteBatch<ConsumerRecord<byte[], byte[]>, Void> batch = new WriteBatch<>(16);

        refused.rejected(
                batch, List.of(refused(10, "out of order sample"), refused(11, "duplicate sample for timestamp")));
        assertThat(meters.samplesRepeatsRefused.count()).isEqualTo(24);
        assertThat(meters.samplesRefused.count()).isZero();
        assertThat(done).as("the batch ends: its records were done before").containsExactly(batch);

        refused.rejected(
                batch,
                List.of(
                        refused(12, "out of order sample"),
                        refused(150, "out of order sample"),
                        refused(13, "invalid label name")));
        assertThat(meters.samplesRepeatsRefused.count()).as("offset 12 only").isEqualTo(36);
        assertThat(meters.samplesRefused.count())
                .as("a first read's refusal, and one that is not about order")
                .isEqualTo(24);
        assertThat(done).hasSize(2);
    }

    @Test
    void anOutOfOrderRefusalOfEachReceiverGetsTheFix() {
        for (String detail : new String[] {
            "out of order sample",
            "err-mimir-sample-out-of-order: the sample has been rejected",
            "out of bounds",
            "Out Of Order Sample for series x"
        }) {
            assertThat(RefusedSamples.outOfOrderFix(detail)).as(detail).hasValueSatisfying(fix -> assertThat(fix)
                    .contains(
                            "out_of_order_time_window",
                            "-ingester.out-of-order-time-window",
                            "key the topic by series or host",
                            "--ordering series",
                            "Only the refused samples are lost"));
        }
    }

    @Test
    void otherRefusalsGetNoHint() {
        assertThat(RefusedSamples.outOfOrderFix("cannot parse labels")).isEmpty();
        assertThat(RefusedSamples.outOfOrderFix(null)).isEmpty();
    }
}
