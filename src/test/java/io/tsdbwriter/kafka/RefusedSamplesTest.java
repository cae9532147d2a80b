package io.tsdbwriter.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The out-of-order refusal is named with its fix; other refusals are not. */
class RefusedSamplesTest {

    @Test
    void anOutOfOrderRefusalOfEachReceiverGetsTheFix() {
        for (String detail : new String[] {"out of order sample", "err-mimir-sample-out-of-order: the sample has been rejected",
                "out of bounds", "Out Of Order Sample for series x"}) {
            assertThat(RefusedSamples.outOfOrderFix(detail)).as(detail).hasValueSatisfying(fix -> assertThat(fix)
                    .contains("out_of_order_time_window", "-ingester.out-of-order-time-window", "key the topic by series or host",
                            "--ordering series", "Only the refused samples are lost"));
        }
    }

    @Test
    void otherRefusalsGetNoHint() {
        assertThat(RefusedSamples.outOfOrderFix("cannot parse labels")).isEmpty();
        assertThat(RefusedSamples.outOfOrderFix(null)).isEmpty();
    }
}
