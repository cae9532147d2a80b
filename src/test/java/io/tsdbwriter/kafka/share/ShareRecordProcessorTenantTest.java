package io.tsdbwriter.kafka.share;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.amplify.SeriesCache;
import io.tsdbwriter.durability.DurabilityClock;
import io.tsdbwriter.encode.vmimport.ImportLineEncoder;
import io.tsdbwriter.encode.vmimport.ImportSampleEncoder;
import io.tsdbwriter.kafka.DecodeErrorLog;
import io.tsdbwriter.kafka.IntakeSettings;
import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.tenant.TenantRouting;
import io.tsdbwriter.tenant.TenantSyntax;
import io.tsdbwriter.write.BatchWriter;
import io.tsdbwriter.write.OnWriteFailure;
import io.tsdbwriter.write.RetryPolicy;
import io.tsdbwriter.write.WriteClient;
import io.tsdbwriter.write.WritePermits;
import io.tsdbwriter.write.WriteTarget;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/** Share mode splits by tenant too: a request per tenant, each record done once all its batches are; no tenant: REJECT. */
class ShareRecordProcessorTenantTest {

    private static final long T = 1_795_300_800_000L;

    private static ConsumerRecord<byte[], byte[]> record(long offset, String tenant) {
        RecordHeaders headers = new RecordHeaders();
        if (tenant != null) {
            headers.add(new RecordHeader("tenant", tenant.getBytes(StandardCharsets.UTF_8)));
        }
        byte[] value =
                ("{\"metric\":\"m\",\"timestamp\":" + (T + offset) + ",\"value\":1}").getBytes(StandardCharsets.UTF_8);
        return new ConsumerRecord<>(
                "t", 0, offset, T, TimestampType.CREATE_TIME, 0, value.length, null, value, headers, Optional.empty());
    }

    @Test
    void eachTenantGetsItsOwnRequestAndARecordWithoutTenantIsRejected() throws Exception {
        WriterMeters meters = new WriterMeters(new SimpleMeterRegistry());
        try (MockWebServer server = new MockWebServer();
                WriteClient client = new WriteClient(Duration.ofSeconds(5), 1, false)) {
            server.enqueue(new MockResponse().setResponseCode(204));
            server.enqueue(new MockResponse().setResponseCode(204));
            TenantRouting routing = TenantRouting.parse("header:tenant", null, null, TenantSyntax.ACCOUNT_ID);
            BatchWriter writer = new BatchWriter(
                    List.of(WriteTarget.tenantRouted(server.url("/").toString())),
                    client,
                    new WritePermits(4, 1 << 20),
                    new RetryPolicy(0, Duration.ofMillis(200), Duration.ofSeconds(1), ms -> {}),
                    OnWriteFailure.PAUSE,
                    meters,
                    true);
            AmplificationPlan plan = AmplificationPlan.of(1, 1, Duration.ofSeconds(60));
            IntakeSettings settings = IntakeSettings.builder()
                    .segmentSize(1000)
                    .batchSamples(10_000)
                    .seriesCache(new SeriesCache(100))
                    .encoders(() -> new ImportSampleEncoder(new ImportLineEncoder(plan)))
                    .writer(writer)
                    .meters(meters)
                    .decodeErrors(new DecodeErrorLog(meters))
                    .durability(DurabilityClock.atOnce())
                    .tenants(routing)
                    .build();
            ShareRecordProcessor p = new ShareRecordProcessor(settings);
            AtomicInteger done = new AtomicInteger();
            List<ShareRecordProcessor.Delivery> ds = new ArrayList<>();
            for (String[] r : new String[][] {{"0", "1"}, {"1", "2"}, {"2", "1"}, {"3", null}}) {
                ShareRecordProcessor.Delivery d =
                        new ShareRecordProcessor.Delivery(record(Long.parseLong(r[0]), r[1]), done::incrementAndGet);
                ds.add(d);
                p.process(d);
            }
            assertThat(ds.get(3).done()).as("refused whole, no batch holds it").isTrue();
            assertThat(ds.get(3).acknowledgement()).isEqualTo(AcknowledgeType.REJECT);
            assertThat(ds.get(0).done()).as("its batch is still open").isFalse();
            p.flush();
            List<String> paths = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                RecordedRequest r = server.takeRequest(5, TimeUnit.SECONDS);
                paths.add(r.getPath() + " " + r.getBody().readUtf8().split("\n").length);
            }
            assertThat(paths)
                    .containsExactlyInAnyOrder(
                            "/insert/1/prometheus/api/v1/import 2", "/insert/2/prometheus/api/v1/import 1");
            assertThat(ds).allMatch(ShareRecordProcessor.Delivery::done);
            assertThat(done.get()).isEqualTo(4);
            assertThat(ds.get(0).acknowledgement()).isEqualTo(AcknowledgeType.ACCEPT);
            writer.close();
        }
    }
}
