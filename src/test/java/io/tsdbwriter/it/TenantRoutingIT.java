package io.tsdbwriter.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.tsdbwriter.it.support.ChildServer;
import io.tsdbwriter.it.support.Components.VmEndpoint;
import io.tsdbwriter.it.support.GoBuilds;
import io.tsdbwriter.it.support.Stack;
import io.tsdbwriter.it.support.ThanosReceive;
import io.tsdbwriter.it.support.VictoriaMetricsCluster;
import io.tsdbwriter.it.support.WriterProcess;
import io.tsdbwriter.produce.PointRecords;
import io.tsdbwriter.produce.SourcePoint;
import io.tsdbwriter.verify.ExpectedSamples;
import io.tsdbwriter.verify.ReadBackVerifier;
import io.tsdbwriter.verify.VerificationResult;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import okhttp3.OkHttpClient;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Tenants from the data ({@code --tenant-from header:tenant}, docs/tenants.md) against real components: vmauth of the
 * single-node release mapping each {@code /insert/<accountID>[:<projectID>]/} prefix to a VictoriaMetrics of its own
 * (the import API's cluster path per tenant, where the VictoriaMetrics cluster cannot be built), and Thanos receive
 * with two text tenants ({@code team-a}, {@code team-b} in {@code THANOS-TENANT}, a TSDB per tenant), and the
 * VictoriaMetrics cluster itself where its
 * {@code -cluster} tags are built (skipped otherwise). Each tenant's store holds exactly its own samples; a
 * record without a tenant and no {@code --default-tenant} is refused and dead-lettered with {@code missing_tenant}.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class TenantRoutingIT {

    /** vmauth of the single-node release, built by {@code scripts/lib.sh ensure_vmauth_current}. */
    static final Path VMAUTH = Path.of(System.getProperty("user.home"), ".cache/tsdb-writer/bin/vmauth");

    /** The import API's tenants: VictoriaMetrics cluster's {@code accountID[:projectID]}. */
    static final String A = "1";

    static final String B = "2:5";
    /** Remote write's tenants: text, as Mimir and Thanos receive take them. */
    static final String TEXT_A = "team-a";

    static final String TEXT_B = "team-b";

    @RegisterExtension
    static final Stack stack = Stack.withKafka();

    static final AtomicInteger names = new AtomicInteger();
    static List<SourcePoint> points;

    @BeforeAll
    static void loadInput() throws Exception {
        GoBuilds.built(
                ThanosReceive.BINARY); // the test command may still build it: wait here, outside the tests' timeouts
        List<SourcePoint> all = new ArrayList<>(Scenario.realPoints());
        all.sort(Comparator.comparingLong(
                SourcePoint::timestampMs)); // one partition in time order: remote write's order
        points = List.copyOf(all.subList(0, Math.min(all.size(), 2000)));
    }

    /** Point i's tenant: the first of two for even i, the second for odd. */
    static String tenantOf(int i, String a, String b) {
        return i % 2 == 0 ? a : b;
    }

    /** The points of {@code tenant}, the first ({@code a}) or second of the run's two tenants. */
    static List<SourcePoint> of(String tenant, String a) {
        List<SourcePoint> out = new ArrayList<>();
        for (int i = 0; i < points.size(); i++) {
            if ((i % 2 == 0) == tenant.equals(a)) {
                out.add(points.get(i));
            }
        }
        return out;
    }

    /** One record per point with its tenant header, and last one record without a header. */
    static Scenario.Fixture topic(String name) {
        return topic(name, A, B);
    }

    /** As {@link #topic(String)} with the tenants {@code a} and {@code b}. */
    static Scenario.Fixture topic(String name, String a, String b) {
        String topic = stack.createTopic(name + "-" + names.incrementAndGet(), 1);
        List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
        for (int i = 0; i < points.size(); i++) {
            RecordHeaders h = new RecordHeaders();
            h.add(new RecordHeader("tenant", tenantOf(i, a, b).getBytes(StandardCharsets.UTF_8)));
            records.add(new ProducerRecord<>(topic, 0, null, null, PointRecords.encode(points.get(i)), h));
        }
        SourcePoint last = points.get(points.size() - 1);
        records.add(new ProducerRecord<>(topic, 0, null, PointRecords.encode(last))); // no tenant header
        stack.produce(records);
        return new Scenario.Fixture(topic, "g-" + topic, records.size());
    }

    /** The job: exit 0 (the refused record dead-lettered), committed at its end, the refused record in the DLQ. */
    static void job(Scenario.Fixture f, String name, String url, String... more) throws Exception {
        jobOf(f, A, B, name, url, more);
    }

    /** As {@link #job(Scenario.Fixture, String, String, String...)} for a topic of the tenants {@code a} and {@code b}. */
    static void jobOf(Scenario.Fixture f, String a, String b, String name, String url, String... more)
            throws Exception {
        String dlq = stack.createTopic(f.topic() + "-dlq", 1);
        Path summary = stack.path(name + ".json");
        List<String> args = stack.runArgs(
                url,
                f.topic(),
                f.group(),
                1,
                1,
                1,
                "--tenant-from",
                "header:tenant",
                "--dead-letter-topic",
                dlq,
                "--stop-at-end",
                "--commit-interval",
                "500ms",
                "--summary-json",
                summary.toString());
        args.addAll(List.of(more));
        WriterProcess w = stack.writer(name, args);
        assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
        assertThat(w.output())
                .contains("tenants=header:tenant default=none (refused)")
                .contains("missing_tenant (no record header 'tenant' and no --default-tenant)");
        stack.assertCommittedAtEnd(f);
        var perTenant = Scenario.summary(summary).get("tenant_samples_written");
        assertThat(perTenant.get(a).asLong()).isEqualTo(of(a, a).size());
        assertThat(perTenant.get(b).asLong()).isEqualTo(of(b, a).size());
        assertThat(perTenant.size()).isEqualTo(2);
        List<ConsumerRecord<byte[], byte[]>> dead = stack.readAll(dlq);
        assertThat(dead).hasSize(1);
        assertThat(new String(
                        dead.get(0).headers().lastHeader("tsdbwriter.reason").value(), StandardCharsets.UTF_8))
                .isEqualTo("missing_tenant");
        assertThat(new String(
                        dead.get(0)
                                .headers()
                                .lastHeader("tsdbwriter.source.offset")
                                .value(),
                        StandardCharsets.UTF_8))
                .isEqualTo(Integer.toString(points.size()));
    }

    @Test
    void vmauthSendsEachTenantsImportPathToItsOwnVictoriaMetrics() throws Exception {
        Assumptions.assumeTrue(GoBuilds.built(VMAUTH), VMAUTH + " not built (scripts/lib.sh ensure_vmauth_current)");
        VmEndpoint vmA = stack.startVm("tenant-a");
        VmEndpoint vmB = stack.startVm("tenant-b");
        try (ChildServer vmauth = vmauth("vmauth", vmA, vmB)) {
            Scenario.Fixture f = topic("tenants-vmauth");
            job(f, "tenants-vmauth", vmauth.url());
            Scenario.assertExactReadBack(vmA.url(), Scenario.expected(of(A, A), 1, 1));
            Scenario.assertExactReadBack(vmB.url(), Scenario.expected(of(B, A), 1, 1));
        }
    }

    /** vmauth mapping /insert/1/ to {@code a} and /insert/2:5/ to {@code b} (the rest of the path after 3 parts). */
    static ChildServer vmauth(String name, VmEndpoint a, VmEndpoint b) throws Exception {
        Path config = stack.path(name).resolve("auth.yml");
        Files.createDirectories(config.getParent());
        // /insert/<tenant>/prometheus/api/v1/import → /api/v1/import of the tenant's own single node
        Files.writeString(
                config,
                """
                unauthorized_user:
                  url_map:
                  - src_paths: ["/insert/1/.*"]
                    url_prefix: "%s/"
                    drop_src_path_prefix_parts: 3
                  - src_paths: ["/insert/2:5/.*"]
                    url_prefix: "%s/"
                    drop_src_path_prefix_parts: 3
                """
                        .formatted(a.url(), b.url()));
        return stack.own(ChildServer.start(
                VMAUTH,
                stack.path(name),
                "vmauth",
                false,
                new OkHttpClient(),
                port -> List.of("-auth.config=" + config)));
    }

    @Test
    void relabelingSetsTheTenantLabelWhichRoutesAndIsRemoved() throws Exception {
        Assumptions.assumeTrue(GoBuilds.built(VMAUTH), VMAUTH + " not built (scripts/lib.sh ensure_vmauth_current)");
        VmEndpoint vmA = stack.startVm("label-a");
        VmEndpoint vmB = stack.startVm("label-b");
        try (ChildServer vmauth = vmauth("vmauth-label", vmA, vmB)) {
            String topic = stack.createTopic("tenants-label-" + names.incrementAndGet(), 1);
            List<ProducerRecord<byte[], byte[]>> records = new ArrayList<>();
            for (SourcePoint p : points) {
                records.add(new ProducerRecord<>(topic, 0, null, PointRecords.encode(p)));
            }
            stack.produce(records);
            Scenario.Fixture f = new Scenario.Fixture(topic, "g-" + topic, records.size());
            Path rules = stack.path("tenant-relabel.yml");
            Files.writeString(
                    rules,
                    "- {source_labels: [__name__], regex: 'node_cpu_.*', target_label: vm_account_id, replacement: '1'}\n");
            WriterProcess w = stack.writer(
                    "tenants-label",
                    stack.runArgs(
                            vmauth.url(),
                            f.topic(),
                            f.group(),
                            1,
                            1,
                            1,
                            "--relabel-config",
                            rules.toString(),
                            "--tenant-from",
                            "label:vm_account_id",
                            "--default-tenant",
                            B,
                            "--stop-at-end",
                            "--commit-interval",
                            "500ms"));
            assertThat(w.waitFor(Scenario.PROCESS_TIMEOUT)).as(w.output()).isZero();
            stack.assertCommittedAtEnd(f);
            List<SourcePoint> cpu = points.stream()
                    .filter(p -> p.metric().startsWith("node_cpu_"))
                    .toList();
            List<SourcePoint> rest = points.stream()
                    .filter(p -> !p.metric().startsWith("node_cpu_"))
                    .toList();
            assertThat(cpu).isNotEmpty();
            assertThat(rest).isNotEmpty();
            Scenario.assertExactReadBack(
                    vmA.url(), Scenario.expected(cpu, 1, 1)); // the label removed: the source's labels
            Scenario.assertExactReadBack(vmB.url(), Scenario.expected(rest, 1, 1));
        }
    }

    @Test
    void aVictoriaMetricsClusterGetsEachTenantAtItsOwnInsertPath() throws Exception {
        String why = VictoriaMetricsCluster.unavailable();
        Assumptions.assumeTrue(why == null, why);
        try (VictoriaMetricsCluster cluster =
                stack.own(VictoriaMetricsCluster.start(stack.path("tenants-cluster"), 2))) {
            String insert = cluster.insertUrl();
            String select = cluster.selectUrl();
            Scenario.Fixture f = topic("tenants-cluster");
            job(f, "tenants-cluster", insert.substring(0, insert.indexOf("/insert/")));
            for (String t : List.of(A, B)) {
                String tenantSelect = select.substring(0, select.indexOf("/select/")) + "/select/" + t + "/prometheus";
                ExpectedSamples expected = Scenario.expected(of(t, A), 1, 1);
                VerificationResult r = new ReadBackVerifier(
                                tenantSelect,
                                cluster.storageUrls(),
                                ReadBackVerifier.ALL_SERIES,
                                ReadBackVerifier.DEFAULT_RELATIVE_TOLERANCE,
                                ReadBackVerifier.defaultClient())
                        .verifyWithin(expected, Duration.ofSeconds(60), Duration.ofMillis(500));
                assertThat(r.passed()).as("tenant " + t + ": " + r.summary()).isTrue();
                assertThat(r.foundSamples()).isEqualTo(expected.sampleCount());
            }
        }
    }

    @Test
    void thanosReceiveKeepsEachTenantsSamplesInItsOwnTsdb() throws Exception {
        String why = ThanosReceive.unavailable();
        Assumptions.assumeTrue(why == null, why);
        try (ThanosReceive thanos = stack.own(ThanosReceive.start(stack.path("tenants-thanos")))) {
            Scenario.Fixture f = topic("tenants-thanos", TEXT_A, TEXT_B);
            jobOf(
                    f,
                    TEXT_A,
                    TEXT_B,
                    "tenants-thanos",
                    "http://127.0.0.1:1",
                    "--output",
                    "remote-write",
                    "--remote-write-url",
                    thanos.remoteWriteUrl(),
                    "--remote-write-tenant-header",
                    "THANOS-TENANT");
            for (String t : List.of(TEXT_A, TEXT_B)) {
                ExpectedSamples expected = Scenario.expected(of(t, TEXT_A), 1, 1);
                VerificationResult r =
                        thanos.readBackTenant(t, "{productKey=\"node\"}", expected, Duration.ofSeconds(60));
                assertThat(r.passed()).as("tenant " + t + ": " + r.summary()).isTrue();
                assertThat(r.foundSamples()).isEqualTo(expected.sampleCount());
                assertThat(r.unexpectedSeries()).isZero();
            }
        }
    }
}
