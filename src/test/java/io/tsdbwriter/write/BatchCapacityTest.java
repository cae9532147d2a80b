package io.tsdbwriter.write;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BatchCapacityTest {

    @Test
    void firstBatchOpensWithTheInitialCapacity() {
        BatchCapacity capacity =
                new BatchCapacity(new BodyPool(4, 1 << 20)); // its own pool: no array another test gave back
        WriteBatch<String, Void> batch = capacity.open();
        assertThat(batch.body().array().length).isEqualTo(BatchCapacity.INITIAL_BYTES);
        assertThat(capacity.points()).isEqualTo(BatchCapacity.INITIAL_POINTS);
    }

    @Test
    void nextBatchOpensWithTheLargestSoFarPlusAnEighth() {
        BatchCapacity capacity =
                new BatchCapacity(new BodyPool(4, 1 << 20)); // its own pool: no array another test gave back
        capacity.learn(filled(800_000, 8_000));
        capacity.learn(filled(100_000, 1_000)); // smaller: does not shrink
        assertThat(capacity.bytes()).isEqualTo(900_000);
        assertThat(capacity.points()).isEqualTo(9_000);
        assertThat(capacity.<String, Void>open().body().array().length).isEqualTo(900_000);
    }

    @Test
    void aBatchOpenedAtItsFinalSizeKeepsEveryPoint() {
        WriteBatch<String, Void> batch = new WriteBatch<>(16, 2);
        for (int i = 0; i < 5; i++) { // past the initial points: the arrays still grow
            batch.body().put((byte) 'x');
            batch.addPoint(12, "p" + i);
        }
        assertThat(batch.points()).isEqualTo(5);
        assertThat(batch.samples()).isEqualTo(60);
        assertThat(batch.source(4)).isEqualTo("p4");
        assertThat(batch.slice(3, 5).source(0)).isEqualTo("p3");
    }

    private static WriteBatch<String, Void> filled(int bytes, int points) {
        WriteBatch<String, Void> batch = new WriteBatch<>(bytes, 1);
        batch.body().put(new byte[bytes], 0, bytes);
        for (int i = 0; i < points; i++) {
            batch.addPoint(1, "p");
        }
        return batch;
    }
}
