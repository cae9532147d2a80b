package io.tsdbwriter.pipeline;

import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.encode.SampleEncoder;
import io.tsdbwriter.relabel.RelabelRules;
import io.tsdbwriter.tenant.Tenant;
import io.tsdbwriter.tenant.TenantRouting;
import java.nio.charset.StandardCharsets;

/**
 * What a series' cached state is built from, once per series on its cache miss ({@link PointAmplifier}): its labels,
 * relabeled by {@code --relabel-config} when there are rules, then its tenant taken from a label
 * ({@code --tenant-from label:NAME}: read after relabeling, so rules can set it, and removed), then its N prepared line
 * prefixes from the encoder. With rules or a tenant label the series is <em>routed</em> and its state is
 * {@code [hash of the relabeled series: 8 bytes][tenant reference: 4 bytes][prepared]}: the reference is 0 (no
 * tenant label), the tenant's index + 1, or {@link #MISSING} / {@link #INVALID} with the refusal's UTF-8 detail in place
 * of the prepared bytes. A series the rules drop has the empty state. Not thread-safe: one per amplifier.
 */
final class SeriesPreparer {

    /** Bytes of a routed state before the prepared lines. */
    static final int ROUTE_BYTES = 12;
    /** Tenant reference of a series without a tenant (and no default). */
    static final int MISSING = -1;
    /** Tenant reference of a series whose tenant label holds no valid tenant. */
    static final int INVALID = -2;
    /** The prepared state of a series the relabel rules dropped. */
    static final byte[] DROPPED = new byte[0];

    private final SampleEncoder encoder;
    private final RelabelRules relabel;
    private final TenantRouting tenants;

    /** @param relabel rules or null; @param tenants the routing (its label is read only with {@link TenantRouting#byLabel()}) */
    SeriesPreparer(SampleEncoder encoder, RelabelRules relabel, TenantRouting tenants) {
        this.encoder = encoder;
        this.relabel = relabel;
        this.tenants = tenants;
    }

    /** Whether states carry the route ({@link #ROUTE_BYTES} before the prepared lines). */
    boolean routed() {
        return relabel != null || tenants.byLabel();
    }

    /** Whether the lane hash is the relabeled series' (in the state) rather than the source key's. */
    boolean relabels() {
        return relabel != null;
    }

    /** The state of point {@code p}'s series (see the class comment). */
    byte[] prepare(DecodedPoints points, int p, String instanceSuffix) {
        int from = points.labelStart(p);
        int n = points.labelEnd(p) - from;
        String[] names = new String[n];
        String[] values = new String[n];
        for (int i = 0; i < n; i++) {
            names[i] = points.labelName(from + i);
            values[i] = points.labelValue(from + i);
        }
        String metric = points.metric(p);
        if (!routed()) {
            return encoder.prepareSeries(metric, names, values, 0, n, instanceSuffix, points.families());
        }
        long hash = 0;
        if (relabel != null) {
            RelabelRules.Relabeled r = relabel.apply(metric, names, values, 0, n);
            if (r == null) {
                return DROPPED;
            }
            hash = r.hash();
            metric = r.metric();
            names = r.names();
            values = r.values();
        }
        int ref = 0;
        byte[] prepared = null;
        if (tenants.byLabel()) {
            int at = -1;
            for (int i = 0; i < names.length; i++) {
                if (names[i].equals(tenants.name())) {
                    at = i;
                }
            }
            String value = at < 0 ? null : values[at];
            if (at >= 0) {
                names = without(names, at);
                values = without(values, at);
            }
            Tenant t = tenants.resolve(value);
            if (t == null) {
                ref = tenants.missing(value) ? MISSING : INVALID;
                prepared = tenants.refusal(value).getBytes(StandardCharsets.UTF_8);
            } else {
                ref = t.index() + 1;
            }
        }
        if (prepared == null) {
            prepared = encoder.prepareSeries(metric, names, values, 0, names.length, instanceSuffix, points.families());
        }
        byte[] out = new byte[ROUTE_BYTES + prepared.length];
        for (int i = 0; i < 8; i++) {
            out[i] = (byte) (hash >>> (56 - 8 * i));
        }
        for (int i = 0; i < 4; i++) {
            out[8 + i] = (byte) (ref >>> (24 - 8 * i));
        }
        System.arraycopy(prepared, 0, out, ROUTE_BYTES, prepared.length);
        return out;
    }

    /** Whether the state at {@code entry[at…]} is a series that is written: not dropped, not refused for its tenant. */
    boolean writable(byte[] entry, int at) {
        return at < entry.length && (!routed() || tenantRef(entry, at) >= 0);
    }

    /** The tenant reference of a routed state beginning at {@code at}. */
    static int tenantRef(byte[] entry, int at) {
        int r = 0;
        for (int i = at + 8; i < at + 12; i++) {
            r = r << 8 | (entry[i] & 0xFF);
        }
        return r;
    }

    private static String[] without(String[] a, int at) {
        String[] out = new String[a.length - 1];
        System.arraycopy(a, 0, out, 0, at);
        System.arraycopy(a, at + 1, out, at, a.length - at - 1);
        return out;
    }
}
