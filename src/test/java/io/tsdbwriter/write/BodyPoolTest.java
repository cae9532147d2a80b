package io.tsdbwriter.write;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BodyPoolTest {

    @Test
    void aRecycledBatchsBodyArrayIsTheNextBatchsBody() {
        BodyPool pool = new BodyPool(4, 1 << 20);
        BatchCapacity capacity = new BatchCapacity(pool);
        WriteBatch<String, Void> first = capacity.open();
        byte[] array = first.body().array();
        first.body().put((byte) 'x');
        first.addPoint(1, "p0");

        first.recycle();

        assertThat(pool.arrays()).isEqualTo(1);
        assertThat(first.body().length()).isZero();
        assertThat(first.samples()).isEqualTo(1); // counts and sources stay
        assertThat(first.source(0)).isEqualTo("p0");
        WriteBatch<String, Void> next = capacity.open();
        assertThat(next.body().array()).isSameAs(array);
        assertThat(next.body().length()).isZero();
        assertThat(pool.arrays()).isZero();
        assertThat(pool.bytes()).isZero();
    }

    @Test
    void recycleIsIdempotentAndNothingForABatchNotMadeFromAPool() {
        BodyPool pool = new BodyPool(4, 1 << 20);
        WriteBatch<String, Void> pooled = new BatchCapacity(pool).open();
        pooled.recycle();
        pooled.recycle();
        assertThat(pool.arrays()).isEqualTo(1);

        WriteBatch<String, Void> own = new WriteBatch<>(64);
        own.body().put((byte) 'x');
        own.recycle();
        assertThat(own.body().length()).isEqualTo(1);
        assertThat(pool.arrays()).isEqualTo(1);
    }

    @Test
    void anArrayTooSmallForTheCapacityAskedIsDroppedForANewOne() {
        BodyPool pool = new BodyPool(4, 1 << 20);
        pool.give(new byte[100]);

        byte[] a = pool.take(200);

        assertThat(a).hasSize(200);
        assertThat(pool.arrays()).isZero();
        assertThat(pool.bytes()).isZero();
    }

    @Test
    void arraysBeyondTheCountOrTheBytesAreNotKept() {
        BodyPool byCount = new BodyPool(2, 1 << 20);
        for (int i = 0; i < 3; i++) {
            byCount.give(new byte[10]);
        }
        assertThat(byCount.arrays()).isEqualTo(2);
        assertThat(byCount.bytes()).isEqualTo(20);

        BodyPool byBytes = new BodyPool(8, 25);
        for (int i = 0; i < 3; i++) {
            byBytes.give(new byte[10]);
        }
        assertThat(byBytes.arrays()).isEqualTo(2);
        assertThat(byBytes.bytes()).isEqualTo(20);
    }
}
