package io.tsdbwriter.write;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tsdbwriter.tenant.Tenant;
import io.tsdbwriter.tenant.TenantRouting;
import io.tsdbwriter.tenant.TenantSyntax;
import io.tsdbwriter.wire.ByteBuf;
import io.tsdbwriter.wire.Output;
import io.tsdbwriter.write.http.HttpAuthConfig;
import io.tsdbwriter.write.http.HttpClientSecurity;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Set;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import okhttp3.mockwebserver.RecordedRequest;
import org.junit.jupiter.api.Test;

/** Requests split by tenant: a VictoriaMetrics cluster path per tenant, a remote write tenant header; batches never mix. */
class TenantRoutingWriteTest {

    private final TenantRouting routing = TenantRouting.parse("header:t", null, null, TenantSyntax.ACCOUNT_ID);
    private final Tenant one = routing.resolve("1");
    private final Tenant twoThree = routing.resolve("2:3");

    @Test
    void aTenantRoutedImportTargetWritesEachTenantToItsClusterPath() {
        WriteTarget t = WriteTarget.tenantRouted("http://vminsert:8480/");
        assertThat(t.writeUrl(one)).isEqualTo("http://vminsert:8480/insert/1/prometheus/api/v1/import");
        assertThat(t.writeUrl(twoThree)).isEqualTo("http://vminsert:8480/insert/2:3/prometheus/api/v1/import");
        assertThat(WriteTarget.tenantRouted("http://proxy/vm").writeUrl(one))
                .isEqualTo("http://proxy/vm/insert/1/prometheus/api/v1/import");
        assertThat(t.metricsUrl()).isEqualTo("http://vminsert:8480/metrics");
        assertThat(new WriteTarget("http://vm:8428").writeUrl(one))
                .as("not routed: the URL as given")
                .isEqualTo("http://vm:8428/api/v1/import");
        assertThat(WriteTarget.remoteWrite("http://thanos:19291/api/v1/receive").writeUrl(one))
                .isEqualTo("http://thanos:19291/api/v1/receive");
    }

    @Test
    void aTenantRoutedTargetRefusesAUrlThatNamesATenantAlready() {
        assertThatThrownBy(() -> WriteTarget.tenantRouted("http://vminsert:8480/insert/0/prometheus"))
                .hasMessage(
                        "with --tenant-from, --vm-url is the vminsert base URL the tenant's path is appended to "
                                + "(/insert/<accountID>[:<projectID>]/prometheus): give 'http://vminsert:8480', not 'http://vminsert:8480/insert/0/prometheus'");
    }

    @Test
    void remoteWriteCarriesTheTenantInTheConfiguredHeaderAndTheEmptyProbeToo() throws Exception {
        try (MockWebServer server = new MockWebServer();
                WriteClient client = new WriteClient(
                        Duration.ofSeconds(5),
                        1,
                        false,
                        Output.REMOTE_WRITE,
                        HttpClientSecurity.of(HttpAuthConfig.NONE),
                        RemoteWriteVersion.V1,
                        null,
                        "THANOS-TENANT")) {
            server.enqueue(new MockResponse().setResponseCode(204));
            server.enqueue(new MockResponse().setResponseCode(204));
            server.enqueue(new MockResponse().setResponseCode(204));
            WriteTarget target =
                    WriteTarget.remoteWrite(server.url("/api/v1/receive").toString());
            ByteBuf body = new ByteBuf(16);
            WriteClient.Payload p = client.prepare(body, 0, twoThree);
            assertThat(client.post(target, p).isSuccess()).isTrue();
            client.release(p);
            client.probeEmpty(target, one);
            client.probeEmpty(target);
            RecordedRequest r = server.takeRequest();
            assertThat(r.getHeader("THANOS-TENANT")).isEqualTo("2:3");
            assertThat(server.takeRequest().getHeader("THANOS-TENANT")).isEqualTo("1");
            assertThat(server.takeRequest().getHeader("THANOS-TENANT"))
                    .as("no tenant: no header")
                    .isNull();
        }
    }

    @Test
    void importRequestsGoToTheTenantsPathWithoutAHeader() throws Exception {
        try (MockWebServer server = new MockWebServer();
                WriteClient client = new WriteClient(Duration.ofSeconds(5), 1, false)) {
            server.enqueue(new MockResponse().setResponseCode(204));
            WriteTarget target = WriteTarget.tenantRouted(server.url("/").toString());
            ByteBuf body = new ByteBuf(16);
            body.put("{}\n".getBytes(StandardCharsets.UTF_8), 0, 3);
            assertThat(client.post(target, client.prepare(body, 0, twoThree)).isSuccess())
                    .isTrue();
            RecordedRequest r = server.takeRequest();
            assertThat(r.getPath()).isEqualTo("/insert/2:3/prometheus/api/v1/import");
            assertThat(r.getHeader("X-Scope-OrgID")).isNull();
        }
    }

    @Test
    void openBatchesAreOnePerLaneAndTenantAndSlicesKeepTheTenant() {
        OpenBatches<String, Void> open = new OpenBatches<>(2);
        int a = open.slot(0, one);
        int b = open.slot(1, one);
        int c = open.slot(0, twoThree);
        int none = open.slot(1, null);
        assertThat(Set.of(a, b, c, none)).hasSize(4);
        assertThat(open.lane(b)).isEqualTo(1);
        assertThat(open.lane(c)).isZero();
        WriteBatch<String, Void> first = open.open(c, twoThree, 10);
        open.open(a, one, 12);
        assertThat(open.count()).isEqualTo(2);
        assertThat(open.stillOpenFrom()).isEqualTo(10);
        first.addPoint(1, "p");
        assertThat(open.take(c)).isSameAs(first);
        assertThat(open.stillOpenFrom()).isEqualTo(12);
        assertThat(first.tenant()).isSameAs(twoThree);
        assertThat(first.slice(0, 1).tenant()).isSameAs(twoThree);
        assertThat(open.get(c)).isNull();
    }
}
