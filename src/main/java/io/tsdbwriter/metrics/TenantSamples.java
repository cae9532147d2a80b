package io.tsdbwriter.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.tsdbwriter.tenant.Tenant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * [tsdbwriter_tenant_samples_written_total] samples acknowledged (2xx) per tenant, with {@code --tenant-from}: tag
 * {@code tenant} is the tenant as given ({@code accountID[:projectID]} or text) for the first {@value #MAX_TENANT_TAGS}
 * tenants the process writes, then {@value #OTHER} for all later ones, so a topic with unbounded tenants cannot grow
 * the series of {@code /metrics} without bound. Registered on a tenant's first write. Thread-safe; allocation-free once
 * the tenant's counter exists.
 */
public final class TenantSamples {

    /** Tenants that get a {@code tenant} tag of their own: 100. */
    public static final int MAX_TENANT_TAGS = 100;
    /** The {@code tenant} tag of every tenant beyond {@link #MAX_TENANT_TAGS}. */
    public static final String OTHER = "other";

    static final String NAME = WriterMeters.PREFIX + "tenant.samples.written";

    private final MeterRegistry registry;
    private volatile Counter[] byIndex = new Counter[8];
    private Counter other;

    TenantSamples(MeterRegistry registry) {
        this.registry = registry;
    }

    /** Adds {@code samples} written for {@code tenant}. */
    public void add(Tenant tenant, long samples) {
        int i = tenant.index();
        Counter[] c = byIndex;
        Counter counter = i < c.length ? c[i] : null;
        if (counter == null) {
            counter = register(tenant);
        }
        counter.increment(samples);
    }

    private synchronized Counter register(Tenant tenant) {
        int i = tenant.index();
        if (i >= byIndex.length) {
            byIndex = Arrays.copyOf(byIndex, Math.max(i + 1, byIndex.length * 2));
        }
        Counter c = byIndex[i];
        if (c == null) {
            boolean own = i < MAX_TENANT_TAGS;
            if (!own && other == null) {
                other = counter(OTHER);
            }
            c = own ? counter(tenant.id()) : other;
            Counter[] copy = byIndex.clone();
            copy[i] = c;
            byIndex = copy;
        }
        return c;
    }

    private Counter counter(String tag) {
        return Counter.builder(NAME)
                .tag("tenant", tag)
                .description("Samples the TSDB acknowledged with 2xx, per tenant " + "(--tenant-from; the first "
                        + MAX_TENANT_TAGS + " tenants by name, later ones as tenant=\"other\")")
                .register(registry);
    }

    /** Samples written per {@code tenant} tag, in the order first written (the summary's {@code tenants}). */
    public synchronized Map<String, Long> written() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (Counter c : byIndex) {
            if (c != null) {
                m.putIfAbsent(c.getId().getTag("tenant"), (long) c.count());
            }
        }
        return m;
    }
}
