package io.tsdbwriter.kafka.segment;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The fetch size a SegmentConsumer fits to its segments at P &gt; 1 (issue 26), from its consumer's counts. */
class FetchSizeTest {

    @Test
    void fetchIsAFixedFractionOfASegmentOnTheWire() {
        // the bench's points: 50,000-record segments, ~25.5 bytes per record received (lz4 batches) -> 1/24 of
        // 1,275,000 bytes
        assertThat(FetchSize.fittedFetchBytes(50_000, 25.5 * 60_000, 60_000, FetchSize.MAX_FETCH_BYTES))
                .isEqualTo(53_125);
        // bounded below and above
        assertThat(FetchSize.fittedFetchBytes(1_000, 25.0 * 1_000, 1_000, FetchSize.FIRST_SEGMENT_FETCH_BYTES))
                .isEqualTo(FetchSize.MIN_FETCH_BYTES);
        assertThat(FetchSize.fittedFetchBytes(1_000_000, 1e6 * 1_000, 1_000, FetchSize.FIRST_SEGMENT_FETCH_BYTES))
                .isEqualTo(FetchSize.MAX_FETCH_BYTES);
    }

    @Test
    void fetchIsKeptWhenTheFitIsCloseOrTheCountsSayNothing() {
        assertThat(FetchSize.fittedFetchBytes(50_000, 33.6 * 1_000, 1_000, 65_536))
                .isZero(); // 70,000: within a third
        assertThat(FetchSize.fittedFetchBytes(50_000, 0, 1_000, 65_536)).isZero();
        assertThat(FetchSize.fittedFetchBytes(50_000, 1e6, 0, 65_536)).isZero();
        assertThat(FetchSize.fittedFetchBytes(50_000, Double.NaN, Double.NaN, 65_536))
                .isZero();
    }
}
