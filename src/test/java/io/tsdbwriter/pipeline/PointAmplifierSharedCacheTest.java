package io.tsdbwriter.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.amplify.SeriesCache;
import io.tsdbwriter.encode.vmimport.ImportLineEncoder;
import io.tsdbwriter.wire.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Readers of one process share the series cache (segment readers at P > 1, share consumers at P > 1): a series they
 * meet at the same moment is prepared by each, but it was created once, so {@code series_created} counts it once.
 */
class PointAmplifierSharedCacheTest {

    private static final long T = 1_795_300_800_000L;
    private static final int READERS = 4;
    private static final int SERIES = 2_000;
    private static final int N = 3;

    private static byte[] record(int series) {
        return ("{\"metric\":\"node_load1\",\"timestamp\":" + T
                        + ",\"value\":0.5,\"dimensions\":{\"instanceNo\":\"host\",\"cpu\":\"c" + series + "\"}}")
                .getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aSeriesMetByReadersAtTheSameMomentIsCountedOnce() throws Exception {
        SeriesCache cache = new SeriesCache(SERIES * 2);
        List<PointAmplifier> readers = new ArrayList<>();
        for (int r = 0; r < READERS; r++) {
            readers.add(new PointAmplifier(
                    1 << 20, new ImportLineEncoder(AmplificationPlan.of(1, N, Duration.ofSeconds(60))), cache));
        }
        CyclicBarrier together = new CyclicBarrier(READERS); // every reader meets series s at once: each may miss it
        ExecutorService pool = Executors.newFixedThreadPool(READERS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (PointAmplifier a : readers) {
                done.add(pool.submit(() -> {
                    ByteBuf out = new ByteBuf(1024);
                    for (int s = 0; s < SERIES; s++) {
                        together.await();
                        assertThat(a.decode(record(s), 0).total()).isZero();
                        out.reset();
                        a.encodePoint(0, out);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }

        long created =
                readers.stream().mapToLong(PointAmplifier::seriesPrepared).sum();
        assertThat(created)
                .as("each series' N variants counted once, whichever reader made them")
                .isEqualTo((long) SERIES * N);
        assertThat(cache.size()).isEqualTo(SERIES);
    }
}
