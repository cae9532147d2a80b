package io.tsdbwriter.tenant;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The process's tenants, each parsed once and given a dense {@link Tenant#index()} in the order first seen. Lookups
 * by text allocate nothing beyond the caller's string. Thread-safe.
 */
public final class Tenants {

    private final TenantSyntax syntax;
    private final ConcurrentHashMap<String, Tenant> byId = new ConcurrentHashMap<>();
    private final List<Tenant> byIndex = new ArrayList<>();

    /** @param syntax what the receiver accepts as a tenant */
    public Tenants(TenantSyntax syntax) {
        this.syntax = syntax;
    }

    /** What the receiver accepts as a tenant. */
    public TenantSyntax syntax() {
        return syntax;
    }

    /**
     * The tenant {@code id}, registered on its first sight.
     *
     * @throws IllegalArgumentException when {@code id} is not a tenant in this registry's syntax ({@link TenantSyntax#invalid})
     */
    public Tenant of(String id) {
        Tenant t = byId.get(id);
        return t != null ? t : register(id);
    }

    private synchronized Tenant register(String id) {
        Tenant t = byId.get(id);
        if (t == null) {
            t = Tenant.parse(id, syntax, byIndex.size());
            byIndex.add(t);
            byId.put(id, t);
        }
        return t;
    }

    /** The tenant of index {@code index} (0 ≤ index &lt; {@link #size()}). */
    public synchronized Tenant get(int index) {
        return byIndex.get(index);
    }

    /** Tenants seen so far. */
    public synchronized int size() {
        return byIndex.size();
    }

    /** Every tenant seen so far, in index order (a copy). */
    public synchronized List<Tenant> all() {
        return List.copyOf(byIndex);
    }
}
