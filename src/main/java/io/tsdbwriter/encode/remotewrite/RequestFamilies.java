package io.tsdbwriter.encode.remotewrite;

import io.tsdbwriter.wire.ByteBuf;
import java.lang.ref.WeakReference;
import java.util.BitSet;

/**
 * Which metadata ids ({@link MetadataRegistry}) a request body already carries, so that a 1.0 {@code WriteRequest}
 * gets one {@code metadata} entry per family (Prometheus remote write 1.0, "metadata": sent per metric family name),
 * not one per point: per body a bit set, the bodies told apart by identity. A consumer fills several bodies at once
 * (one per ordered lane and tenant, {@code OpenBatches}), so the last {@link #SLOTS} bodies are remembered; a body met
 * with length 0 is a new request (its set is cleared). A body forgotten (more than {@link #SLOTS} open at once) only
 * gets a family's entry once more, never none: the encoding is correct either way, at worst larger.
 *
 * <p>Bodies are held weakly (a sent body is not kept alive). Allocates a {@link WeakReference} per new body, nothing
 * per point. Not thread-safe: one per encoder.
 */
final class RequestFamilies {

    /** Bodies remembered at once. */
    static final int SLOTS = 64;

    @SuppressWarnings("unchecked")
    private final WeakReference<ByteBuf>[] bodies = new WeakReference[SLOTS];

    private final BitSet[] written = new BitSet[SLOTS];
    private int last;
    private int nextVictim;

    /**
     * Whether {@code out} needs family {@code id}'s entry, marking it as written when so.
     *
     * @param id a metadata id ≥ 1
     */
    boolean firstIn(ByteBuf out, int id) {
        int s = slot(out);
        BitSet set = written[s];
        if (set.get(id)) {
            return false;
        }
        set.set(id);
        return true;
    }

    private int slot(ByteBuf out) {
        int s = last;
        if (!holds(s, out)) {
            s = -1;
            for (int i = 0; i < SLOTS && s < 0; i++) {
                if (holds(i, out)) {
                    s = i;
                }
            }
            if (s < 0) {
                s = nextVictim;
                nextVictim = (nextVictim + 1) % SLOTS;
                bodies[s] = new WeakReference<>(out);
                if (written[s] == null) {
                    written[s] = new BitSet();
                }
                written[s].clear();
            }
            last = s;
        }
        if (out.length() == 0) { // an empty body starts a request (a body may be reset and filled again)
            written[s].clear();
        }
        return s;
    }

    private boolean holds(int s, ByteBuf out) {
        WeakReference<ByteBuf> r = bodies[s];
        return r != null && r.get() == out;
    }
}
