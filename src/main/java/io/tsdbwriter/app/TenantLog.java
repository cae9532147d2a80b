package io.tsdbwriter.app;

import io.tsdbwriter.config.RunConfig;
import io.tsdbwriter.tenant.TenantRouting;
import io.tsdbwriter.wire.Output;
import java.util.Locale;

/** The start line's words about tenant routing ({@code --tenant-from}, docs/tenants.md). Stateless. */
final class TenantLog {

    private TenantLog() {}

    /** {@code " tenants=label:NAME default=ID via=/insert/<tenant>/…"}, or empty without routing. */
    static String describe(RunConfig cfg) {
        TenantRouting t = cfg.tenants();
        if (!t.routes()) {
            return "";
        }
        return " tenants=" + t.from().name().toLowerCase(Locale.ROOT) + ":" + t.name()
                + " default="
                + (t.defaultTenant() == null
                        ? "none (refused)"
                        : t.defaultTenant().id())
                + " via="
                + (cfg.output() == Output.REMOTE_WRITE
                        ? "header " + t.header()
                        : "/insert/<tenant>/prometheus/api/v1/import");
    }
}
