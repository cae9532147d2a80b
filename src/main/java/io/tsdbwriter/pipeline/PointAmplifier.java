package io.tsdbwriter.pipeline;

import io.tsdbwriter.amplify.ChurnGenerations;
import io.tsdbwriter.amplify.SeriesCache;
import io.tsdbwriter.amplify.SeriesLimiter;
import io.tsdbwriter.amplify.SeriesVariants;
import io.tsdbwriter.decode.DecodeError;
import io.tsdbwriter.decode.DecodedPoints;
import io.tsdbwriter.decode.InputFormat;
import io.tsdbwriter.decode.RecordDecoder;
import io.tsdbwriter.decode.Rejections;
import io.tsdbwriter.decode.json.JsonDecoder;
import io.tsdbwriter.encode.SampleEncoder;
import io.tsdbwriter.encode.vmimport.ImportLineEncoder;
import io.tsdbwriter.encode.vmimport.ImportSampleEncoder;
import io.tsdbwriter.relabel.RelabelRules;
import io.tsdbwriter.tenant.Tenant;
import io.tsdbwriter.tenant.TenantRouting;
import io.tsdbwriter.wire.ByteBuf;
import io.tsdbwriter.wire.Output;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The hot path decode → amplify → encode, for one record at a time: {@link #decode} a record value, then
 * {@link #encodePoint} each of its points as M × N samples into a request body. Per point it looks the series up
 * by its identity bytes (no {@code String}) and allocates nothing once warm; per sample nothing (series line
 * prefixes come from a {@link SeriesCache}, built once per series).
 * Used by every SegmentConsumer and by the JMH benchmark.
 *
 * <p>Not thread-safe: one instance per consuming thread (the series cache it uses may be shared).
 */
public final class PointAmplifier {

    private final RecordDecoder decoder;
    private final Rejections rejections;
    private final SampleEncoder encoder;
    private final SeriesCache seriesCache;
    private final DecodedPoints points = new DecodedPoints();
    /** Added to every timestamp ({@code --rebase-time}, {@code --loop}); with it the window's range is tracked. */
    private long timeShiftMs;

    private boolean timeline;
    /** {@code --churn-interval} in ms (0 = no churn) and the (shifted) time its generation 0 starts. */
    private long churnIntervalMs;

    private ChurnGenerations churn;
    private long minSourceMs = Long.MAX_VALUE;
    private long maxSourceMs = Long.MIN_VALUE;
    private long seriesPrepared;
    /** {@code --relabel-config}, applied once per series before it is prepared; null = none. */
    private RelabelRules relabel;

    private long relabelDropped;
    /** {@code --tenant-from} ({@link TenantRouting#NONE}: none); builds each series' state with {@link #relabel}. */
    private TenantRouting tenants = TenantRouting.NONE;

    private SeriesPreparer preparer;
    /** With {@code --tenant-from header:NAME}: the tenant of the record being encoded ({@link #recordTenant}). */
    private Tenant recordTenant;
    /** The point whose series key {@link #lane} computed last, its key's length and hash (reused by encodePoint). */
    private int keyedPoint = -1;

    private int keyedLength;
    private long keyedHash;
    /** With relabel rules: the cached entry {@link #lane} looked up for {@link #keyedPoint} (reused by encodePoint), else null. */
    private byte[] keyedEntry;
    /** Whether a point may be copied from its record without a series lookup: no routing and no series limits. */
    private boolean verbatim = true;

    // --max-hourly-series / --max-daily-series (seriesLimits): each cached state then begins with a limit stamp of
    // STAMP_BYTES, [(hour + 1): 4 bytes][header tenant + 1: 30 bits][verdict: 2 bits], 0 before its first check
    /** Bytes of the limit stamp before each cached state. */
    static final int STAMP_BYTES = 8;

    private static final long CHECKED = 1;
    private static final long DROPPED_HOURLY = 2;
    private static final long DROPPED_DAILY = 3;
    private static final VarHandle STAMP = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    /** The process's series limits, shared by every amplifier; null = none. */
    private SeriesLimiter limits;
    /** {@link #STAMP_BYTES} with limits, else 0: where a state's own bytes begin after its entry's key. */
    private int stampBytes;
    /** With limits: the stamp of the record being encoded, its verdict bits 0 (set by {@link #decode}). */
    private long limitWindow;

    private long hourlyLimitDropped;
    private long dailyLimitDropped;
    private long[] variantHashes = new long[1];

    /**
     * @param maxRecordBytes      larger records are rejected
     * @param encoder             encodes for the run's amplification plan
     * @param seriesCacheCapacity series whose prepared lines are kept (a cache of its own)
     */
    public PointAmplifier(int maxRecordBytes, ImportLineEncoder encoder, int seriesCacheCapacity) {
        this(maxRecordBytes, encoder, new SeriesCache(seriesCacheCapacity));
    }

    /**
     * @param seriesCache prepared series lines, shared with the process's other consumers (same encoder)
     */
    public PointAmplifier(int maxRecordBytes, ImportLineEncoder encoder, SeriesCache seriesCache) {
        this(new JsonDecoder(maxRecordBytes), new ImportSampleEncoder(encoder), seriesCache);
    }

    /**
     * @param encoder     this thread's encoder for the run's output protocol (the seam of DESIGN §6)
     * @param seriesCache prepared series, shared with the process's other consumers (encoders of the same output)
     */
    public PointAmplifier(int maxRecordBytes, SampleEncoder encoder, SeriesCache seriesCache) {
        this(new JsonDecoder(maxRecordBytes), encoder, seriesCache);
    }

    /**
     * @param decoder reads the records of one {@link InputFormat} (the topic's); the output is the import API's
     */
    public PointAmplifier(RecordDecoder decoder, ImportLineEncoder encoder, SeriesCache seriesCache) {
        this(decoder, new ImportSampleEncoder(encoder), seriesCache);
    }

    /**
     * @param decoder     reads the records of one {@link InputFormat} (the topic's)
     * @param encoder     this thread's encoder for the run's output protocol (the seam of DESIGN §6)
     * @param seriesCache prepared series, shared with the process's other consumers (encoders of the same output)
     *                    Values that are not finite pass as the output can carry them ({@link Rejections.NonFinite}):
     *                    all into remote write, ±Inf into the import API
     */
    public PointAmplifier(RecordDecoder decoder, SampleEncoder encoder, SeriesCache seriesCache) {
        this.decoder = decoder;
        this.encoder = encoder;
        this.seriesCache = seriesCache;
        this.rejections = new Rejections(
                encoder.output() == Output.REMOTE_WRITE
                        ? Rejections.NonFinite.KEEP
                        : Rejections.NonFinite.KEEP_INFINITIES);
        this.preparer = new SeriesPreparer(encoder, null, tenants);
        // native histograms only where the output carries them; the import API keeps each format's sample mapping
        points.histograms().accept(encoder.output() == Output.REMOTE_WRITE);
    }

    /** What the configuration allows: a verbatim copy without routing or limits. */
    private void configured() {
        verbatim = !preparer.routed() && limits == null;
    }

    /**
     * Decodes a json record value (the Kafka timestamp is not needed); null when valid (then
     * {@link #pointCount()} ≥ 1), else why it is rejected.
     */
    public DecodeError decode(byte[] value) {
        return decode(value, 0).first();
    }

    /**
     * Decodes a record value of this amplifier's format; the valid points are then {@link #pointCount()}, what was
     * refused is in the returned {@link Rejections} (valid until the next decode).
     *
     * @param kafkaTimestampMs the record's timestamp: the timestamp of samples that carry none
     */
    public Rejections decode(byte[] value, long kafkaTimestampMs) {
        keyedPoint = -1;
        decoder.decode(value, kafkaTimestampMs, points, rejections);
        if (limits != null) {
            long tenantBits = recordTenant == null ? 0 : (recordTenant.index() + 1) & 0x3FFF_FFFFL;
            limitWindow = (limits.hour() + 1) << 32 | tenantBits << 2;
        }
        if (timeline && points.count() > 0) {
            maxSourceMs = Math.max(maxSourceMs, points.maxTimestampMs());
            minSourceMs = Math.min(minSourceMs, points.shiftTimestamps(timeShiftMs));
        }
        return rejections;
    }

    /**
     * Sets this amplifier's timeline (docs/capacity-testing.md): {@code shiftMs} is added to every point's timestamp
     * before it is amplified ({@code --rebase-time}, pass k of {@code --loop}), the range of the source timestamps is
     * tracked ({@link #minSourceTimestampMs()}, {@link #maxSourceTimestampMs()}), and with {@code churnIntervalMs > 0}
     * a point at (shifted) time t belongs to generation {@code g = floor((t − churnOriginMs) / churnIntervalMs)}: its
     * N instance values end in {@code -g<g>} ({@link io.tsdbwriter.amplify.AmplificationPlan#instanceVariants(String, String)}),
     * so each generation is a new set of series. Call before the first record.
     *
     * @return this
     */
    public PointAmplifier timeline(long shiftMs, long churnIntervalMs, long churnOriginMs) {
        return timeline(shiftMs, churnIntervalMs, churnOriginMs, Long.MAX_VALUE);
    }

    /**
     * {@link #timeline(long, long, long)}, and with churn: once this amplifier sees generation g, the cached series of
     * generations older than {@code g − churnKeepMs / churnIntervalMs − 1} are removed from the shared series cache —
     * no reader will see them again when every reader is at most {@code churnKeepMs} of sample time behind this one
     * (a replay pass's window), so a long soak with churn holds a few generations, not every one it made. A series
     * removed too early is only prepared again. {@link Long#MAX_VALUE} removes none.
     *
     * @return this
     */
    public PointAmplifier timeline(long shiftMs, long churnIntervalMs, long churnOriginMs, long churnKeepMs) {
        if (churnKeepMs < 0) {
            throw new IllegalArgumentException("churn keep span must not be negative");
        }
        if (churnIntervalMs < 0) {
            throw new IllegalArgumentException("churn interval must not be negative");
        }
        this.timeline = true;
        this.timeShiftMs = shiftMs;
        this.churnIntervalMs = churnIntervalMs;
        this.churn = churnIntervalMs > 0 ? new ChurnGenerations(churnIntervalMs, churnOriginMs, churnKeepMs) : null;
        return this;
    }

    /**
     * Whether OTLP explicit-bucket histograms become native histograms with custom buckets
     * ({@code --convert-histograms-to-nhcb}, {@link io.tsdbwriter.decode.PointHistograms#acceptCustomBuckets}): only
     * where the output carries native histograms (remote write); with the import API they stay classic series whatever
     * this says. False by default. Call before the first record.
     *
     * @return this
     */
    public PointAmplifier convertHistogramsToNhcb(boolean convert) {
        points.histograms().acceptCustomBuckets(convert);
        return this;
    }

    /**
     * Whether classic histograms of Prometheus text and OpenMetrics records become native histograms with custom
     * buckets ({@code --convert-classic-histograms-to-nhcb},
     * {@link io.tsdbwriter.decode.PointHistograms#acceptClassicCustomBuckets}): only where the output carries native
     * histograms (remote write); with the import API they stay classic series whatever this says. False by default.
     * Call before the first record.
     *
     * @return this
     */
    public PointAmplifier convertClassicHistogramsToNhcb(boolean convert) {
        points.histograms().acceptClassicCustomBuckets(convert);
        return this;
    }

    /**
     * Relabels every series with {@code rules} (Prometheus' relabel_config, {@link RelabelRules}) once, on its cache miss,
     * before it is amplified: the relabeled labels are what is prepared and cached; a series the rules drop, or that
     * ends with no {@code __name__}, is cached as dropped (an entry with an empty state) and its points are counted
     * ({@link #relabelDropped()}) and not encoded. Points then always go through the series cache (no verbatim copy).
     * Call before the first record.
     *
     * @param rules the rules, or null for none
     * @return this
     */
    public PointAmplifier relabel(RelabelRules rules) {
        this.relabel = rules;
        this.preparer = new SeriesPreparer(encoder, rules, tenants);
        configured();
        return this;
    }

    /**
     * Routes by tenant ({@code --tenant-from}, docs/tenants.md). With a tenant label it is read from each series once,
     * after the relabel rules, cached in its entry and removed from its labels ({@link #tenant(int)}); a series
     * without one (and no default) or with an invalid one is refused: its points are added to the record's
     * {@link Rejections} ({@code missing_tenant}, {@code invalid_tenant}) and not encoded. Call before the first record.
     *
     * @return this
     */
    public PointAmplifier tenants(TenantRouting routing) {
        this.tenants = routing;
        this.preparer = new SeriesPreparer(encoder, relabel, routing);
        configured();
        return this;
    }

    /**
     * Limits the series written ({@code --max-hourly-series}, {@code --max-daily-series}, {@link SeriesLimiter}): a
     * series is checked against the limits once per hour, on its first point of the hour — its N instance variants as
     * the TSDB receives them (after relabeling, with their tenant) — and the verdict kept in its cache entry, so later
     * points cost one comparison. The points of a dropped series encode nothing; their samples (M × N each) are counted
     * ({@link #hourlyLimitDropped()}, {@link #dailyLimitDropped()}). Points then always go through the series cache (no
     * verbatim copy). With {@code --tenant-from header:NAME} a series that comes in another tenant than at its last
     * check is checked again. Call before the first record, with the same limiter on every amplifier sharing the cache.
     *
     * @param limiter the process's limits, or null for none
     * @return this
     */
    public PointAmplifier seriesLimits(SeriesLimiter limiter) {
        this.limits = limiter;
        this.stampBytes = limiter == null ? 0 : STAMP_BYTES;
        configured();
        return this;
    }

    /** Samples not written because the hourly series limit dropped their series, since this amplifier was made. */
    public long hourlyLimitDropped() {
        return hourlyLimitDropped;
    }

    /** Samples not written because the daily series limit dropped their series, since this amplifier was made. */
    public long dailyLimitDropped() {
        return dailyLimitDropped;
    }

    /** Where the state of a cached entry begins, after its limit stamp when series are limited. */
    private int stateAt(byte[] entry) {
        return SeriesCache.stateOffset(entry) + stampBytes;
    }

    /** With {@code --tenant-from header:NAME}: the tenant of the record whose points are encoded next (null: none). */
    public void recordTenant(Tenant tenant) {
        this.recordTenant = tenant;
    }

    /**
     * The tenant of point {@code p}: with a tenant label its series' (looked up, or prepared on a miss, and kept for
     * {@link #encodePoint} of the same point; allocation-free on a hit), else the record's ({@link #recordTenant}).
     * Null without routing, and for a refused series (its {@link #encodePoint} adds the refusal and encodes nothing).
     */
    public Tenant tenant(int p) {
        if (!tenants.byLabel()) {
            return recordTenant;
        }
        byte[] entry = routedEntry(p);
        int at = stateAt(entry);
        int ref = at == entry.length ? 0 : SeriesPreparer.tenantRef(entry, at);
        return ref > 0 ? tenants.tenants().get(ref - 1) : null;
    }

    /** Point {@code p}'s cached entry when series are routed, looked up once per point (kept for encodePoint). */
    private byte[] routedEntry(int p) {
        if (keyedPoint == p && keyedEntry != null) {
            return keyedEntry;
        }
        int length = points.seriesKey(p);
        long hash = SeriesCache.hash(points.seriesKeyBytes(), length);
        keyedPoint = p;
        keyedLength = length;
        keyedHash = hash;
        keyedEntry = churnIntervalMs > 0
                ? churnedEntry(p)
                : cachedSeries(p, points.seriesKeyBytes(), length, hash, NO_GENERATION);
        return keyedEntry;
    }

    /** Points whose series the relabel rules dropped, since this amplifier was made. */
    public long relabelDropped() {
        return relabelDropped;
    }

    /** The smallest source timestamp (before the shift) decoded since {@link #timeline}; {@link Long#MAX_VALUE} when none. */
    public long minSourceTimestampMs() {
        return minSourceMs;
    }

    /** The largest source timestamp (before the shift) decoded since {@link #timeline}; {@link Long#MIN_VALUE} when none. */
    public long maxSourceTimestampMs() {
        return maxSourceMs;
    }

    /**
     * Series variants prepared so far: N for every series (or churn generation of one) built in the series cache — a
     * first sight, a new generation, or again after an eviction. A plain copy (N = 1, no churn) prepares none.
     */
    public long seriesPrepared() {
        return seriesPrepared;
    }

    /** The format this amplifier decodes. */
    public InputFormat format() {
        return decoder.format();
    }

    /** Detail of the last rejection. */
    public String lastErrorDetail() {
        return rejections.firstDetail();
    }

    /** Points of the last decoded record. */
    public int pointCount() {
        return points.count();
    }

    /**
     * The buckets of point {@code p}'s native histogram ({@link io.tsdbwriter.decode.PointHistograms#buckets}), or -1
     * when the point is a sample: each sample {@link #encodePoint} writes for a histogram point is one histogram.
     */
    public int histogramBuckets(int p) {
        int h = points.histograms().of(p);
        return h < 0 ? -1 : points.histograms().buckets(h);
    }

    /** Samples each point becomes: M × N. */
    public long samplesPerPoint() {
        return encoder.plan().samplesPerPoint();
    }

    /**
     * The ordered lane of point {@code p}'s series (DESIGN §6 "Per-series order"): a hash of its source series key
     * (metric name and sorted labels, before amplification), so every sample of a series and of its N instance
     * variants and churn generations goes through one lane. The key and its hash are kept for {@link #encodePoint}
     * of the same point, which then does not compute them again. Allocates nothing. With relabel rules
     * ({@link #relabel}) the lane is the hash of the relabeled series instead (kept in its cache entry, which this looks
     * up, or prepares on a miss, for encodePoint to reuse), so two source series that relabel into one series go
     * through one lane; a dropped series' lane is its source key's.
     *
     * @param lanes the number of lanes, ≥ 1
     * @return 0 ≤ lane &lt; {@code lanes}
     */
    public int lane(int p, int lanes) {
        long hash;
        if (preparer.routed()) {
            byte[] entry = routedEntry(p);
            hash = keyedHash;
            int at = stateAt(entry);
            if (preparer.relabels() && at < entry.length) {
                hash = RelabelRules.Relabeled.hashAt(entry, at);
            }
        } else {
            int length = points.seriesKey(p);
            hash = SeriesCache.hash(points.seriesKeyBytes(), length);
            keyedPoint = p;
            keyedLength = length;
            keyedHash = hash;
            keyedEntry = null;
        }
        return (int) Long.remainderUnsigned(hash ^ (hash >>> 29), lanes);
    }

    /**
     * Appends point {@code p}'s N lines of M samples to {@code out}.
     *
     * @return samples appended
     */
    public int encodePoint(int p, ByteBuf out) {
        encoder.point(points, p); // what the point carries beside its value: its exemplar, or its native histogram
        if (churnIntervalMs > 0) {
            return encodeChurned(p, out);
        }
        if (verbatim && encoder.canEncodeVerbatim(points)) {
            return encoder.encodePointVerbatim(points, p, out);
        }
        if (keyedPoint == p && keyedEntry != null) { // lane() or tenant() looked the routed series up
            return encodeEntry(p, keyedEntry, out);
        }
        int keyLength;
        long hash;
        if (keyedPoint == p) { // lane() computed them
            keyLength = keyedLength;
            hash = keyedHash;
        } else {
            keyLength = points.seriesKey(p); // first: it may replace the key buffer seriesKeyBytes() returns
            hash = SeriesCache.hash(points.seriesKeyBytes(), keyLength);
        }
        byte[] entry = cachedSeries(p, points.seriesKeyBytes(), keyLength, hash, NO_GENERATION);
        return encodeEntry(p, entry, out);
    }

    /**
     * Encodes point {@code p} of a cached series; a series the relabel rules dropped (empty state) is counted, 0 samples,
     * as is one refused for its tenant or dropped by the series limits.
     */
    private int encodeEntry(int p, byte[] entry, ByteBuf out) {
        int at = stateAt(entry);
        if (at == entry.length) {
            relabelDropped++;
            return 0;
        }
        long timestampMs = points.timestampMs(p);
        double value = points.value(p);
        if (!preparer.routed()) {
            if (limits != null && !admitted(p, entry, at, 0)) {
                return 0;
            }
            return encoder.encodePoint(entry, at, timestampMs, value, out);
        }
        int ref = SeriesPreparer.tenantRef(entry, at);
        if (ref < 0) { // no tenant, or an invalid one: refused, and the record with it
            DecodeError reason =
                    ref == SeriesPreparer.MISSING ? DecodeError.MISSING_TENANT : DecodeError.INVALID_TENANT;
            rejections.add(
                    reason,
                    rejections.wantsDetail(reason)
                            ? new String(
                                    entry,
                                    at + SeriesPreparer.ROUTE_BYTES,
                                    entry.length - at - SeriesPreparer.ROUTE_BYTES,
                                    StandardCharsets.UTF_8)
                            : "");
            return 0;
        }
        if (limits != null && !admitted(p, entry, at + SeriesPreparer.ROUTE_BYTES, ref)) {
            return 0;
        }
        return encoder.encodePoint(entry, at + SeriesPreparer.ROUTE_BYTES, timestampMs, value, out);
    }

    /**
     * Whether the series of {@code entry} (its variants at {@code variantsAt}; {@code tenantRef}: its tenant label's, 0
     * when none) is admitted in the current hour: read from its stamp when it was checked this hour in this record's
     * tenant, else checked now. A dropped point's samples are counted by the limit that dropped it.
     */
    private boolean admitted(int p, byte[] entry, int variantsAt, int tenantRef) {
        int stampAt = SeriesCache.stateOffset(entry);
        long stamp = (long) STAMP.get(entry, stampAt);
        long verdict = (stamp & ~3L) == limitWindow ? stamp & 3L : check(p, entry, stampAt, variantsAt, tenantRef);
        if (verdict == CHECKED) {
            return true;
        }
        if (verdict == DROPPED_HOURLY) {
            hourlyLimitDropped += encoder.plan().samplesPerPoint();
        } else {
            dailyLimitDropped += encoder.plan().samplesPerPoint();
        }
        return false;
    }

    /**
     * A series' first point of the hour (or since its entry was prepared): its N variants' hashes — of their labels as
     * encoded, with the tenant — go to the limiter, and the verdict is stamped into a copy of the entry that replaces it
     * in the cache (entries are never modified once cached). Once per series and hour: allocates.
     */
    private long check(int p, byte[] entry, int stampAt, int variantsAt, int tenantRef) {
        int n = SeriesVariants.count(entry, variantsAt);
        if (variantHashes.length < n) {
            variantHashes = new long[n];
        }
        long tenant = tenantRef != 0 ? tenantRef : (limitWindow >>> 2) & 0x3FFF_FFFFL;
        int pos = SeriesVariants.first(variantsAt);
        for (int j = 0; j < n; j++) {
            byte[] labels = Arrays.copyOfRange(entry, pos + 4, pos + 4 + SeriesVariants.length(entry, pos));
            variantHashes[j] = SeriesCache.hash(labels, labels.length) ^ tenant * 0x9E3779B97F4A7C15L;
            pos = SeriesVariants.next(entry, pos);
        }
        long verdict =
                switch (limits.admit(variantHashes, n, () -> describe(p))) {
                    case ADMITTED -> CHECKED;
                    case HOURLY -> DROPPED_HOURLY;
                    case DAILY -> DROPPED_DAILY;
                };
        byte[] key = Arrays.copyOfRange(entry, 4, stampAt);
        byte[] state = Arrays.copyOfRange(entry, stampAt, entry.length);
        STAMP.set(state, 0, limitWindow | verdict);
        seriesCache.put(key, key.length, SeriesCache.hash(key, key.length), state);
        return verdict;
    }

    /** Point {@code p}'s series as read, {@code metric{name="value",…}}, for a WARN line. */
    private String describe(int p) {
        StringBuilder b = new StringBuilder(points.metric(p)).append('{');
        for (int i = points.labelStart(p); i < points.labelEnd(p); i++) {
            b.append(i == points.labelStart(p) ? "" : ",")
                    .append(points.labelName(i))
                    .append("=\"")
                    .append(points.labelValue(i))
                    .append('"');
        }
        return b.append('}').toString();
    }

    /** {@link #cachedSeries}'s generation when there is no churn: no instance suffix. */
    private static final long NO_GENERATION = Long.MIN_VALUE;

    /**
     * The cached entry of point {@code p}'s series under {@code key[0, keyLength)}, prepared on a miss — with churn, its
     * instance values suffixed {@code -g<generation>} (the suffix string is built on a miss only).
     */
    private byte[] cachedSeries(int p, byte[] key, int keyLength, long hash, long generation) {
        byte[] entry = seriesCache.get(key, keyLength, hash);
        if (entry == null) {
            byte[] state = prepare(p, generation == NO_GENERATION ? null : "-g" + generation);
            if (stampBytes > 0) { // an unchecked limit stamp first
                byte[] stamped = new byte[stampBytes + state.length];
                System.arraycopy(state, 0, stamped, stampBytes, state.length);
                state = stamped;
            }
            byte[] made = SeriesCache.entry(key, keyLength, state);
            entry = seriesCache.putIfAbsent(made, hash);
            if (entry == made
                    && preparer.writable(made, stateAt(made))) { // else made since the miss, dropped or refused
                seriesPrepared += encoder.plan().instanceMultiplier();
            }
        }
        return entry;
    }

    /** With churn: the cache key is the series' key and its generation (8 bytes), so each generation is its own entry. */
    private int encodeChurned(int p, ByteBuf out) {
        byte[] entry = keyedPoint == p && keyedEntry != null ? keyedEntry : churnedEntry(p);
        return encodeEntry(p, entry, out);
    }

    /** Point {@code p}'s cached entry in its churn generation (prepared on a miss); older generations pruned first. */
    private byte[] churnedEntry(int p) {
        long generation = churn.generation(points.timestampMs(p), seriesCache);
        int length = points.seriesKey(p);
        byte[] key = churn.key(points.seriesKeyBytes(), length, generation);
        return cachedSeries(p, key, length + 8, SeriesCache.hash(key, length + 8), generation);
    }

    /** The generation in a churned entry's key: its last 8 bytes, big-endian. */
    static long entryGeneration(byte[] entry) {
        return ChurnGenerations.entryGeneration(entry);
    }

    /** A series seen for the first time (or evicted since): its state ({@link SeriesPreparer}). */
    private byte[] prepare(int p, String instanceSuffix) {
        return preparer.prepare(points, p, instanceSuffix);
    }
}
