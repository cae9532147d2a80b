package io.tsdbwriter.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.amplify.AmplificationPlan;
import io.tsdbwriter.amplify.SeriesCache;
import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.encode.vmimport.ImportLineEncoder;
import io.tsdbwriter.relabel.RelabelRules;
import io.tsdbwriter.tenant.TenantRouting;
import io.tsdbwriter.tenant.TenantSyntax;
import io.tsdbwriter.wire.ByteBuf;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@code --tenant-from label:NAME}: read once per series after relabeling, removed, cached; refused without one. */
class TenantLabelPipelineTest {

    private static final long T = 1_795_300_800_000L;

    private static byte[] record(String metric, String dimensions) {
        return ("{\"metric\":\"" + metric + "\",\"timestamp\":" + T + ",\"value\":1,\"dimensions\":{" + dimensions
                        + "}}")
                .getBytes(StandardCharsets.UTF_8);
    }

    private static PointAmplifier amplifier(SeriesCache cache, RelabelRules rules, TenantRouting routing) {
        return new PointAmplifier(
                        1 << 20, new ImportLineEncoder(AmplificationPlan.of(1, 1, Duration.ofSeconds(60))), cache)
                .relabel(rules)
                .tenants(routing);
    }

    private static String text(ByteBuf out) {
        return new String(out.array(), 0, out.length(), StandardCharsets.UTF_8);
    }

    @Test
    void theTenantLabelRoutesTheSeriesAndIsRemovedFromIt() {
        SeriesCache cache = new SeriesCache(100);
        PointAmplifier a =
                amplifier(cache, null, TenantRouting.parse("label:tenant", null, null, TenantSyntax.ACCOUNT_ID));
        ByteBuf out = new ByteBuf(256);
        for (int i = 0; i < 3; i++) {
            a.decode(record("cpu", "\"host\":\"h\",\"tenant\":\"7:2\""), 0);
            assertThat(a.tenant(0).id()).isEqualTo("7:2");
            assertThat(a.encodePoint(0, out)).isEqualTo(1);
        }
        assertThat(text(out))
                .startsWith("{\"metric\":{\"__name__\":\"cpu\",\"host\":\"h\"}")
                .doesNotContain("tenant");
        assertThat(cache.misses()).as("read once per series").isEqualTo(1);
    }

    @Test
    void relabelingCanSetTheTenantBeforeItIsRead() {
        RelabelRules rules = RelabelRules.parse(
                """
                - {source_labels: [team], regex: 'a', target_label: vm_account_id, replacement: '1'}
                - {source_labels: [team], regex: 'b', target_label: vm_account_id, replacement: '2'}
                """,
                "test.yml");
        PointAmplifier a = amplifier(
                new SeriesCache(100),
                rules,
                TenantRouting.parse("label:vm_account_id", null, null, TenantSyntax.ACCOUNT_ID));
        a.decode(record("cpu", "\"team\":\"b\""), 0);
        assertThat(a.tenant(0).id()).isEqualTo("2");
        ByteBuf out = new ByteBuf(256);
        a.encodePoint(0, out);
        assertThat(text(out)).contains("\"team\":\"b\"").doesNotContain("vm_account_id");
    }

    @Test
    void aSeriesWithoutTenantGetsTheDefault() {
        PointAmplifier a = amplifier(
                new SeriesCache(100), null, TenantRouting.parse("label:tenant", "5", null, TenantSyntax.ACCOUNT_ID));
        a.decode(record("cpu", "\"host\":\"h\""), 0);
        assertThat(a.tenant(0).id()).isEqualTo("5");
    }

    @Test
    void aSeriesWithoutTenantAndNoDefaultIsRefusedPerPointWithTheReason() {
        PointAmplifier a = amplifier(
                new SeriesCache(100), null, TenantRouting.parse("label:tenant", null, null, TenantSyntax.ACCOUNT_ID));
        ByteBuf out = new ByteBuf(256);
        for (int i = 0; i < 2; i++) {
            Rejections r = a.decode(record("cpu", "\"host\":\"h\""), 0);
            assertThat(a.tenant(0)).isNull();
            assertThat(a.encodePoint(0, out)).isZero();
            assertThat(r.count(DecodeError.MISSING_TENANT)).isEqualTo(1);
            assertThat(r.malformed()).as("dead-lettered as a malformed record").isTrue();
            assertThat(r.firstDetail()).isEqualTo("no label 'tenant' and no --default-tenant");
        }
        assertThat(out.length()).isZero();
        assertThat(a.seriesPrepared()).as("a refused series begins none").isZero();
    }

    @Test
    void anInvalidTenantIsRefusedEvenWithADefault() {
        PointAmplifier a = amplifier(
                new SeriesCache(100), null, TenantRouting.parse("label:tenant", "1", null, TenantSyntax.ACCOUNT_ID));
        Rejections r = a.decode(record("cpu", "\"tenant\":\"acme\""), 0);
        assertThat(a.tenant(0)).isNull();
        assertThat(a.encodePoint(0, new ByteBuf(64))).isZero();
        assertThat(r.count(DecodeError.INVALID_TENANT)).isEqualTo(1);
        assertThat(r.firstDetail()).startsWith("label 'tenant': 'acme' is not a tenant");
    }

    @Test
    void withHeaderRoutingThePointTakesTheRecordsTenantAndItsLabelsStay() {
        TenantRouting routing = TenantRouting.parse("header:tenant", null, null, TenantSyntax.ACCOUNT_ID);
        PointAmplifier a = amplifier(new SeriesCache(100), null, routing);
        a.recordTenant(routing.resolve("3"));
        a.decode(record("cpu", "\"tenant\":\"x\""), 0);
        assertThat(a.tenant(0).id()).isEqualTo("3");
        ByteBuf out = new ByteBuf(256);
        a.encodePoint(0, out);
        assertThat(text(out)).contains("\"tenant\":\"x\"");
    }
}
