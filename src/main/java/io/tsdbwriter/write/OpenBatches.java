package io.tsdbwriter.write;

import io.tsdbwriter.tenant.Tenant;
import java.util.Arrays;

/**
 * The batches a poll thread is filling: one per (ordered lane, tenant), so a batch never mixes tenants
 * ({@code --tenant-from}, docs/tenants.md) and every batch of a lane and tenant is handed on in the order it was
 * opened (per-series order, DESIGN §6, holds per tenant). Without lanes there is one lane; without routing one tenant
 * slot (null). Each open batch keeps the first source offset it holds and when it was opened. New batches open with
 * the {@link BatchCapacity} learned from the ones handed on.
 *
 * <p>Not thread-safe: one per poll thread.
 *
 * @param <S> a point's source
 * @param <O> the creator's handle
 */
public final class OpenBatches<S, O> {

    private final int lanes;
    private final BatchCapacity capacity = new BatchCapacity();
    private WriteBatch<S, O>[] batches;
    private long[] firstOffset;
    private long[] openedAt;
    private int count;
    private long oldestOpenedAt;

    /** @param lanes ordered lanes (≥ 1; 1 when unordered) */
    @SuppressWarnings("unchecked")
    public OpenBatches(int lanes) {
        this.lanes = Math.max(1, lanes);
        this.batches = new WriteBatch[this.lanes];
        this.firstOffset = new long[this.lanes];
        this.openedAt = new long[this.lanes];
    }

    /** The slot of lane {@code lane} and tenant {@code tenant} (null: no routing). Allocation-free once grown. */
    public int slot(int lane, Tenant tenant) {
        int s = (tenant == null ? 0 : tenant.index() + 1) * lanes + lane;
        if (s >= batches.length) {
            int n = Math.max(s + 1, batches.length * 2);
            batches = Arrays.copyOf(batches, n);
            firstOffset = Arrays.copyOf(firstOffset, n);
            openedAt = Arrays.copyOf(openedAt, n);
        }
        return s;
    }

    /** The lane of a slot. */
    public int lane(int slot) {
        return slot % lanes;
    }

    /** The slot's open batch, or null. */
    public WriteBatch<S, O> get(int slot) {
        return batches[slot];
    }

    /**
     * Opens a batch in an empty slot, for {@code tenant}, whose first point comes from {@code offset}.
     *
     * @return the new batch
     */
    public WriteBatch<S, O> open(int slot, Tenant tenant, long offset) {
        WriteBatch<S, O> b = capacity.open();
        b.tenant(tenant);
        long now = System.nanoTime();
        batches[slot] = b;
        firstOffset[slot] = offset;
        openedAt[slot] = now;
        if (count++ == 0) {
            oldestOpenedAt = now;
        }
        return b;
    }

    /** Batches open. */
    public int count() {
        return count;
    }

    /** Slots there are (open or not): iterate {@code [0, slots())} to find every open batch. */
    public int slots() {
        return batches.length;
    }

    /** The first offset of the slot's open batch. */
    public long firstOffset(int slot) {
        return firstOffset[slot];
    }

    /** Nanoseconds since the oldest open batch was opened (0 when none). */
    public long ageNanos() {
        return count == 0 ? 0 : System.nanoTime() - oldestOpenedAt;
    }

    /** The lowest first offset of the batches still open, -1 when none. */
    public long stillOpenFrom() {
        long from = -1;
        for (int i = 0; i < batches.length && count > 0; i++) {
            if (batches[i] != null && (from < 0 || firstOffset[i] < from)) {
                from = firstOffset[i];
            }
        }
        return from;
    }

    /** Takes the slot's batch out (to hand it on): the capacity learns from it; the oldest open time is the rest's. */
    public WriteBatch<S, O> take(int slot) {
        WriteBatch<S, O> b = batches[slot];
        batches[slot] = null;
        count--;
        long oldest = Long.MAX_VALUE;
        for (int i = 0; i < batches.length && count > 0; i++) {
            if (batches[i] != null) {
                oldest = Math.min(oldest, openedAt[i]);
            }
        }
        oldestOpenedAt = oldest;
        capacity.learn(b);
        return b;
    }
}
