package io.tsdbwriter.cli;

import io.tsdbwriter.relabel.RelabelRules;
import io.tsdbwriter.tenant.TenantRouting;
import io.tsdbwriter.tenant.TenantSyntax;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * {@code run}'s flags of what is done to each series on its way and where it is routed: {@code --relabel-config}, and
 * the tenant's source, default and remote write header (docs/tenants.md). A picocli mixin, declared where these flags
 * sit in {@code run --help}; only wires: {@link RelabelRules} and {@link TenantRouting} hold the logic. Not thread-safe
 * (picocli fills it once per parse).
 */
final class RoutingOptions {

    @Option(
            names = "--relabel-config",
            paramLabel = "FILE",
            description =
                    "A YAML list of Prometheus relabel_config entries (replace, keep, drop, keepequal, dropequal, hashmod, "
                            + "labelmap, labeldrop, labelkeep, lowercase, uppercase) with Prometheus 3's semantics, regexes in RE2 syntax "
                            + "anchored at both ends; __name__ is a label like any other. Applied once per series, before amplification; "
                            + "a series dropped, or left without labels or __name__, is counted (relabel_dropped), never an error. "
                            + "An invalid file: one line naming the entry and field, exit 2 (default: none)")
    Path relabelConfig;

    @Option(
            names = "--tenant-from",
            paramLabel = "header:NAME|label:NAME",
            description =
                    "Split writes by tenant: accountID[:projectID] for --output import (a VictoriaMetrics cluster), text such as team-a for "
                            + "remote write (Mimir's tenant ID characters). header:NAME: the value "
                            + "of the record's Kafka header NAME; label:NAME: the series' label NAME, read after --relabel-config (so a "
                            + "rule can set it) and removed before writing. --output import: each tenant's requests go to "
                            + "<vm-url>/insert/<tenant>/prometheus/api/v1/import (give --vm-url as http://vminsert:8480); remote write: the "
                            + "tenant in --remote-write-tenant-header. A record or series without a tenant gets --default-tenant, else it "
                            + "is refused like a malformed record (missing_tenant, invalid_tenant: counted, dead-lettered) (default: none)")
    String tenantFrom;

    @Option(
            names = "--default-tenant",
            paramLabel = "ID",
            description =
                    "The tenant (accountID[:projectID] for --output import, text for remote write) of a record or series that "
                            + "carries none, with --tenant-from "
                            + "(default: none: such records are refused)")
    String defaultTenant;

    @Option(
            names = "--remote-write-tenant-header",
            paramLabel = "NAME",
            defaultValue = TenantRouting.DEFAULT_HEADER,
            description =
                    "The remote write request header that carries the tenant with --tenant-from: X-Scope-OrgID for Mimir "
                            + "and Cortex, THANOS-TENANT for Thanos receive (its --receive.tenant-header default) (default: ${DEFAULT-VALUE})")
    String remoteWriteTenantHeader;

    /** The rules of {@code --relabel-config}, or null. @throws IllegalArgumentException on an invalid file */
    RelabelRules relabel() {
        return relabelConfig == null ? null : RelabelRules.load(relabelConfig);
    }

    /**
     * The tenant routing of the flags, its tenants in the syntax the output's receiver accepts.
     *
     * @param remoteWrite whether the output is remote write (text tenants) rather than the import API
     *                    ({@code accountID[:projectID]})
     * @throws IllegalArgumentException naming the flag
     */
    TenantRouting tenants(boolean remoteWrite) {
        return TenantRouting.parse(tenantFrom, defaultTenant, remoteWriteTenantHeader, TenantSyntax.of(remoteWrite));
    }
}
