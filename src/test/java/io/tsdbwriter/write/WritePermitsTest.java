package io.tsdbwriter.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class WritePermitsTest {

    private final WriteTarget a = new WriteTarget("http://a:8480/insert/0/prometheus");
    private final WriteTarget b = new WriteTarget("http://b:8480/insert/0/prometheus");

    @Test
    void permitGoesToTheEndpointWithTheMostFreePermits() throws Exception {
        WritePermits permits = new WritePermits(1, 1 << 20);
        permits.capacity(a, 3);
        permits.capacity(b, 1);

        assertThat(permits.acquire(List.of(a, b), 10, e -> true).endpoint()).isSameAs(a); // a 3 free, b 1
        assertThat(permits.acquire(List.of(a, b), 10, e -> true).endpoint()).isSameAs(a); // a 2 free, b 1
        assertThat(permits.acquire(List.of(a, b), 10, e -> true).endpoint()).isSameAs(a); // tie 1:1 → first listed
        assertThat(permits.acquire(List.of(a, b), 10, e -> true).endpoint()).isSameAs(b);
        assertThat(permits.inUse()).isEqualTo(4);
        assertThat(permits.capacity()).isEqualTo(4);
    }

    @Test
    void unhealthyEndpointIsAvoidedWhileAHealthyOneHasAPermit() throws Exception {
        WritePermits permits = new WritePermits(2, 1 << 20);
        permits.capacity(a, 5);
        permits.capacity(b, 1);

        assertThat(permits.acquire(List.of(a, b), 10, e -> e != a).endpoint()).isSameAs(b);
        assertThat(permits.acquire(List.of(a, b), 10, e -> e != a).endpoint()).isSameAs(a); // no healthy one free
    }

    @Test
    void releaseReturnsThePermitAndTheBytes() throws Exception {
        WritePermits permits = new WritePermits(1, 1000);
        WritePermits.Permit p = permits.acquire(a, 400);

        assertThat(permits.inUse(a)).isEqualTo(1);
        assertThat(permits.inflightBytes()).isEqualTo(400);
        permits.release(p);
        assertThat(permits.inUse(a)).isZero();
        assertThat(permits.inflightBytes()).isZero();
    }

    @Test
    void batchLargerThanTheByteBudgetTakesTheWholeBudget() throws Exception {
        WritePermits permits = new WritePermits(4, 1000);

        assertThat(permits.acquire(a, 5000).bytes()).isEqualTo(1000);
        assertThat(permits.inflightBytes()).isEqualTo(1000);
    }

    @Test
    void loweredCapacityAppliesToNewAcquires() throws Exception {
        WritePermits permits = new WritePermits(2, 1 << 20);
        permits.acquire(a, 1);
        permits.capacity(a, 1);

        assertThat(permits.capacity(a)).isEqualTo(1);
        assertThat(permits.inUse(a)).isEqualTo(1);
        assertThat(permits.acquire(List.of(a, b), 1, e -> true).endpoint()).isSameAs(b);
    }

    @Test
    void capacityBelowOneIsRefused() {
        WritePermits permits = new WritePermits(2, 1 << 20);

        assertThatThrownBy(() -> permits.capacity(a, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new WritePermits(0, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void awaitWithinCapacityWaitsForTheRequestsAboveALoweredCapacity() throws Exception {
        WritePermits permits = new WritePermits(3, 1 << 20);
        WritePermits.Permit first = permits.acquire(a, 10);
        WritePermits.Permit second = permits.acquire(a, 10);
        assertThat(permits.awaitWithinCapacity(Duration.ZERO)).isTrue();

        permits.capacity(a, 1); // the process's share went down: 2 in flight, 1 allowed
        assertThat(permits.awaitWithinCapacity(Duration.ZERO)).isFalse();
        permits.release(first);
        assertThat(permits.awaitWithinCapacity(Duration.ZERO)).isTrue();
        assertThat(permits.inUse(a)).isEqualTo(1);
        permits.release(second);
    }
}
