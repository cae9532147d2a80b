package io.tsdbwriter.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.amplify.SeriesCache;
import io.tsdbwriter.config.InputConfig;
import io.tsdbwriter.config.RunConfig;
import io.tsdbwriter.encode.SampleEncoder;
import io.tsdbwriter.encode.vmimport.ImportLineEncoder;
import io.tsdbwriter.encode.vmimport.ImportSampleEncoder;
import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.tenant.TenantRouting;
import io.tsdbwriter.write.BatchWriter;
import io.tsdbwriter.write.OnWriteFailure;
import io.tsdbwriter.write.RetryPolicy;
import io.tsdbwriter.write.WriteClient;
import io.tsdbwriter.write.WritePermits;
import io.tsdbwriter.write.WriteTarget;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The builder names every part, fills in the documented defaults, and refuses what is missing or out of range. */
class IntakeSettingsTest {

    private final WriterMeters meters = new WriterMeters(new SimpleMeterRegistry());
    private final WriteClient client = new WriteClient(Duration.ofSeconds(5), 1, false);
    private final BatchWriter writer = new BatchWriter(
            List.of(new WriteTarget("http://localhost:1/")),
            client,
            new WritePermits(1, 1 << 20),
            new RetryPolicy(0, Duration.ofMillis(200), Duration.ofSeconds(1), ms -> {}),
            OnWriteFailure.PAUSE,
            meters,
            true);
    private final SampleEncoder.Factory encoders =
            () -> new ImportSampleEncoder(new ImportLineEncoder(AmplificationPlan.of(1, 1, Duration.ofSeconds(60))));

    @AfterEach
    void close() throws Exception {
        writer.close();
        client.close();
    }

    private IntakeSettings.Builder required() {
        return IntakeSettings.builder()
                .seriesCache(new SeriesCache(100))
                .encoders(encoders)
                .writer(writer)
                .meters(meters);
    }

    @Test
    void whatIsNotSetKeepsItsDocumentedDefault() {
        IntakeSettings s = IntakeSettings.builder()
                .encoders(encoders)
                .writer(writer)
                .meters(meters)
                .build();
        assertThat(s.consumerProps()).isEmpty();
        assertThat(s.parallelism()).isEqualTo(1);
        assertThat(s.segmentSize()).isEqualTo(50_000);
        assertThat(s.batchSamples()).isEqualTo(10_000);
        assertThat(s.maxRecordBytes()).isEqualTo(1 << 20);
        assertThat(s.seriesCache().capacity()).isEqualTo(1_000_000);
        assertThat(s.decodeErrors()).isNotNull();
        assertThat(s.deadLetters()).isNull();
        assertThat(s.input()).isEqualTo(InputConfig.defaults());
        assertThat(s.rate()).isNull();
        assertThat(s.churnInterval()).isNull();
        assertThat(s.durability().off()).as("acknowledged is stored at once").isTrue();
        assertThat(s.lanes()).isNull();
        assertThat(s.relabel()).isNull();
        assertThat(s.tenants()).isSameAs(TenantRouting.NONE);
    }

    @Test
    void everyPartSetIsKept() {
        SeriesCache cache = new SeriesCache(10);
        DecodeErrorLog decodeErrors = new DecodeErrorLog(meters);
        IntakeSettings s = required()
                .consumerProps(Map.of("bootstrap.servers", "k:9092"))
                .parallelism(RunConfig.MAX_PARALLELISM)
                .segmentSize(RunConfig.MAX_SEGMENT_SIZE)
                .batchSamples(IntakeSettings.MAX_BATCH_SAMPLES)
                .maxRecordBytes(1)
                .seriesCache(cache)
                .decodeErrors(decodeErrors)
                .churnInterval(Duration.ofSeconds(1))
                .build();
        assertThat(s.consumerProps()).containsEntry("bootstrap.servers", "k:9092");
        assertThat(s.parallelism()).isEqualTo(RunConfig.MAX_PARALLELISM);
        assertThat(s.segmentSize()).isEqualTo(RunConfig.MAX_SEGMENT_SIZE);
        assertThat(s.batchSamples()).isEqualTo(IntakeSettings.MAX_BATCH_SAMPLES);
        assertThat(s.maxRecordBytes()).isEqualTo(1);
        assertThat(s.seriesCache()).isSameAs(cache);
        assertThat(s.decodeErrors()).isSameAs(decodeErrors);
        assertThat(s.churnInterval()).isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void aMissingRequiredPartIsNamed() {
        assertThatThrownBy(() ->
                        IntakeSettings.builder().writer(writer).meters(meters).build())
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("encoders");
        assertThatThrownBy(() -> required().writer(null).build())
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("writer");
        assertThatThrownBy(() -> required().meters(null).build())
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("meters");
        assertThatThrownBy(() -> required().tenants(null).build())
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("tenants");
    }

    @Test
    void aNumberOutOfRangeIsNamed() {
        assertThatThrownBy(() -> required().parallelism(0).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("parallelism");
        assertThatThrownBy(() ->
                        required().parallelism(RunConfig.MAX_PARALLELISM + 1).build())
                .hasMessageContaining("parallelism");
        assertThatThrownBy(() -> required().segmentSize(0).build()).hasMessageContaining("segmentSize");
        assertThatThrownBy(() -> required()
                        .batchSamples(IntakeSettings.MAX_BATCH_SAMPLES + 1)
                        .build())
                .hasMessageContaining("batchSamples");
        assertThatThrownBy(() -> required().maxRecordBytes(0).build()).hasMessageContaining("maxRecordBytes");
        assertThatThrownBy(
                        () -> required().churnInterval(Duration.ofMillis(999)).build())
                .hasMessageContaining("churnInterval");
    }
}
