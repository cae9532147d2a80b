package io.tsdbwriter.kafka.segment;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.amplify.SeriesCache;
import io.tsdbwriter.encode.vmimport.ImportLineEncoder;
import io.tsdbwriter.kafka.DecodeErrorLog;
import io.tsdbwriter.metrics.WriterMeters;
import io.tsdbwriter.pipeline.PointAmplifier;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.junit.jupiter.api.Test;

/** A reader's batches never mix tenants; a record without a tenant and no default is refused, counted and acked as done. */
class RecordProcessorTenantTest {

    private static final long T = 1_795_300_800_000L;
    private final WriterMeters meters = new WriterMeters(new SimpleMeterRegistry());

    private static ConsumerRecord<byte[], byte[]> record(long offset, String tenant, String host) {
        RecordHeaders headers = new RecordHeaders();
        if (tenant != null) {
            headers.add(new RecordHeader("tenant", tenant.getBytes(StandardCharsets.UTF_8)));
        }
        byte[] value = ("{\"metric\":\"cpu\",\"timestamp\":" + (T + offset) + ",\"value\":1,\"dimensions\":{\"host\":\""
                        + host + "\"}}")
                .getBytes(StandardCharsets.UTF_8);
        return new ConsumerRecord<>(
                "t", 0, offset, T, TimestampType.CREATE_TIME, 0, value.length, null, value, headers, Optional.empty());
    }

    @Test
    void interleavedTenantsAreWrittenOneRequestPerTenantToItsPath() throws Exception {
        try (MockWebServer server = new MockWebServer();
                WriteClient client = new WriteClient(Duration.ofSeconds(5), 1, false)) {
            for (int i = 0; i < 3; i++) {
                server.enqueue(new MockResponse().setResponseCode(204));
            }
            TenantRouting routing = TenantRouting.parse("header:tenant", null, null, TenantSyntax.ACCOUNT_ID);
            BatchWriter writer = new BatchWriter(
                    List.of(WriteTarget.tenantRouted(server.url("/").toString())),
                    client,
                    new WritePermits(4, 1 << 20),
                    new RetryPolicy(0, Duration.ofMillis(200), Duration.ofSeconds(1), ms -> {}),
                    OnWriteFailure.PAUSE,
                    meters,
                    true);
            AckTracker tracker = new AckTracker(0);
            PointAmplifier amplifier = new PointAmplifier(
                            1 << 20,
                            new ImportLineEncoder(AmplificationPlan.of(1, 1, Duration.ofSeconds(60))),
                            new SeriesCache(100))
                    .tenants(routing);
            RecordProcessor p = RecordProcessor.builder(amplifier, writer, meters, tracker)
                    .batchSamples(10_000)
                    .decodeErrors(new DecodeErrorLog(meters))
                    .tenants(routing)
                    .build();
            p.process(record(0, "1", "a"));
            p.process(record(1, "2:5", "b"));
            p.process(record(2, "1", "c"));
            p.process(record(3, null, "d"));
            p.process(record(4, "x", "e"));
            p.flush();
            tracker.readTo(5);

            List<String> got = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                RecordedRequest r = server.takeRequest(5, TimeUnit.SECONDS);
                Matcher m = Pattern.compile("\"host\":\"(\\w)\"")
                        .matcher(r.getBody().readUtf8());
                StringBuilder hosts = new StringBuilder();
                while (m.find()) {
                    hosts.append(m.group(1));
                }
                got.add(r.getPath() + " " + hosts);
            }
            assertThat(got)
                    .containsExactlyInAnyOrder(
                            "/insert/1/prometheus/api/v1/import ac", "/insert/2:5/prometheus/api/v1/import b");
            assertThat(server.takeRequest(200, TimeUnit.MILLISECONDS))
                    .as("nothing for the refused records")
                    .isNull();
            assertThat(meters.tenantSamples.written()).containsEntry("1", 2L).containsEntry("2:5", 1L);
            assertThat(meters.samplesWritten.count()).isEqualTo(3);
            assertThat(meters.decodeErrors())
                    .as("missing_tenant and invalid_tenant, counted")
                    .isEqualTo(2);
            assertThat(tracker.firstUnacked())
                    .as("the refused records are done (counted), not held")
                    .isEqualTo(5);
            writer.close();
        }
    }
}
