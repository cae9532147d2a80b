package io.tsdbwriter.kafka;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

class KafkaReachabilityTest {

    @Test
    void aRunWithAnEndGivesUpNamingWhatGivesItTheEnd() {
        KafkaReachability replay = new KafkaReachability("127.0.0.1:1", "a replay", Duration.ZERO);
        assertThatThrownBy(() -> replay.unreachable(new TimeoutException("x")))
                .isInstanceOf(KafkaReachability.GaveUp.class)
                .hasMessageContaining("(--kafka-timeout) in a replay: giving up")
                .hasMessageNotContaining("--stop-at-end");
        KafkaReachability job = new KafkaReachability("127.0.0.1:1", "a --stop-at-end job", Duration.ZERO);
        assertThatThrownBy(() -> job.unreachable(new TimeoutException("x")))
                .hasMessageContaining("in a --stop-at-end job: giving up");
    }

    @Test
    void aRelayWithoutAnEndKeepsRetrying() {
        KafkaReachability relay = new KafkaReachability("127.0.0.1:1", null, Duration.ZERO);
        assertThatCode(() -> relay.unreachable(new TimeoutException("x"))).doesNotThrowAnyException();
    }
}
