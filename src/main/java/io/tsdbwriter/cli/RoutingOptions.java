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
            description = "YAML list of Prometheus relabel_config entries (default: none)")
    Path relabelConfig;

    @Option(
            names = "--tenant-from",
            paramLabel = "header:NAME|label:NAME",
            description = "Split writes by tenant from a Kafka header or a series' label (default: none)")
    String tenantFrom;

    @Option(
            names = "--default-tenant",
            paramLabel = "ID",
            description = "The tenant of a record without one, with --tenant-from (default: none: refused)")
    String defaultTenant;

    @Option(
            names = "--remote-write-tenant-header",
            paramLabel = "NAME",
            defaultValue = TenantRouting.DEFAULT_HEADER,
            description = "Request header of the tenant in remote write (default: ${DEFAULT-VALUE})")
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
