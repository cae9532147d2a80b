package io.tsdbwriter.produce;

import io.tsdbwriter.decode.prometheus.PrometheusTextParser;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns Prometheus text exposition files (real node_exporter scrapes such as
 * {@code node-exporter-1795300857.prom}) into source points, the way {@code produce}, {@code verify} and the
 * integration tests all read them:
 * <ul>
 *   <li>every sample with a finite value becomes one {@link SourcePoint}: metric name, labels (empty values
 *       dropped) plus {@code instanceNo} = the given instance (replacing an {@code instanceNo} label of the scrape),
 *       {@code productKey} = the given key, the sample value unchanged;</li>
 *   <li>timestamp (epoch ms): the explicit override when given; otherwise the scrape time from the file name, the
 *       last run of digits read as Unix <em>seconds</em> × 1000; otherwise (no digits in the name) the sample's own
 *       timestamp column; otherwise an {@link IllegalArgumentException}. {@link Loaded#relativeTo} then moves these
 *       dated timestamps to the present (what {@code produce} and {@code verify} do unless told
 *       {@code --keep-timestamps});</li>
 *   <li>samples with NaN/±Inf values are skipped and counted; so are samples with a label name starting with
 *       {@code __} (reserved, the record contract refuses it).</li>
 * </ul>
 * Points come in file order, then line order. Stateless; all methods are static and thread-safe.
 */
public final class RealInput {

    private static final Pattern DIGITS = Pattern.compile("[0-9]+");

    /** The unit of {@link #presentShiftMs}: one minute, the spacing of the shipped scrapes, so their second is kept. */
    public static final long SHIFT_UNIT_MS = 60_000;

    private RealInput() {}

    /**
     * What {@link #read} got from the files.
     *
     * @param points             the source points, unmodifiable, in file then line order
     * @param files              files read
     * @param skippedNonFinite   samples skipped for a NaN/±Inf value
     * @param skippedReserved    samples skipped for a label name starting with {@code __}
     * @param droppedEmptyLabels labels dropped for an empty value
     * @param shiftMs            milliseconds added to every timestamp the files gave ({@link #relativeTo}); 0 as read
     */
    public record Loaded(
            List<SourcePoint> points,
            int files,
            long skippedNonFinite,
            long skippedReserved,
            long droppedEmptyLabels,
            long shiftMs) {

        /**
         * The same points moved to the present: every timestamp plus {@link #presentShiftMs}{@code (newest, nowMs)}, one
         * constant of whole minutes, so the newest point lands within the minute up to {@code nowMs} (never after it)
         * and the order and spacing of the points are kept. Points that lie in the future are moved back the same way.
         * No points: unchanged.
         *
         * @param nowMs the present, epoch milliseconds
         * @return a new {@code Loaded} whose {@link #shiftMs} is the shift applied (added to this one's)
         */
        public Loaded relativeTo(long nowMs) {
            if (points.isEmpty()) {
                return this;
            }
            long newest = Long.MIN_VALUE;
            for (SourcePoint p : points) {
                newest = Math.max(newest, p.timestampMs());
            }
            long shift = presentShiftMs(newest, nowMs);
            List<SourcePoint> moved = new ArrayList<>(points.size());
            for (SourcePoint p : points) {
                moved.add(new SourcePoint(p.metric(), p.labels(), p.productKey(), p.timestampMs() + shift, p.value()));
            }
            return new Loaded(
                    Collections.unmodifiableList(moved),
                    files,
                    skippedNonFinite,
                    skippedReserved,
                    droppedEmptyLabels,
                    shiftMs + shift);
        }

        /** The newest timestamp of {@link #points}, epoch ms; empty without points. */
        public OptionalLong newestMs() {
            return points.stream().mapToLong(SourcePoint::timestampMs).max();
        }

        /**
         * One line for operators, e.g. {@code 10140 points from 20 files (skipped: 0 NaN/Inf, 0 reserved labels; 160
         * empty labels dropped)}.
         */
        public String describe() {
            return points.size() + " points from " + files + " file" + (files == 1 ? "" : "s") + " (skipped: "
                    + skippedNonFinite + " NaN/Inf, " + skippedReserved + " with reserved labels; " + droppedEmptyLabels
                    + " empty labels dropped)";
        }
    }

    /**
     * The source points of {@code files}; see {@link #read} for the rules.
     *
     * @throws IOException when a file cannot be read or is not valid exposition text
     *     ({@link PrometheusTextParser.ParseException} names the file and line)
     * @throws IllegalArgumentException when a timestamp cannot be determined
     */
    public static List<SourcePoint> load(List<Path> files, String instance, String productKey, OptionalLong timestampMs)
            throws IOException {
        return read(files, instance, productKey, timestampMs).points();
    }

    /**
     * Reads {@code files} into source points with counts of what was skipped.
     *
     * @param instance    the {@code instanceNo} of every point; null or empty keeps the scrape's own labels as they are
     * @param productKey  the {@code productKey} of every point; null or empty for none
     * @param timestampMs epoch-ms timestamp for every point; empty to take the scrape time from each file name
     * @throws IOException when a file cannot be read or is not valid exposition text
     * @throws IllegalArgumentException when a timestamp cannot be determined
     */
    public static Loaded read(List<Path> files, String instance, String productKey, OptionalLong timestampMs)
            throws IOException {
        List<SourcePoint> points = new ArrayList<>();
        long nonFinite = 0;
        long reserved = 0;
        long emptyLabels = 0;
        for (Path file : files) {
            PrometheusTextParser.Result parsed = PrometheusTextParser.parse(file);
            nonFinite += parsed.skippedNonFinite();
            emptyLabels += parsed.droppedEmptyLabels();
            OptionalLong fileTime = timestampMs.isPresent() ? timestampMs : timestampFromFileName(file);
            for (PrometheusTextParser.Sample s : parsed.samples()) {
                if (hasReservedLabel(s.labels())) {
                    reserved++;
                    continue;
                }
                long ts;
                if (fileTime.isPresent()) {
                    ts = fileTime.getAsLong();
                } else if (s.timestampMs().isPresent()) {
                    ts = s.timestampMs().getAsLong();
                } else {
                    throw new IllegalArgumentException(
                            file + ": no scrape time in the file name (expected e.g. node-exporter-<unix-seconds>.prom)"
                                    + " and no timestamp on sample " + s.metricName() + "; give an explicit timestamp");
                }
                Map<String, String> labels = s.labels();
                if (instance != null && !instance.isEmpty()) {
                    LinkedHashMap<String, String> withInstance = new LinkedHashMap<>(labels);
                    withInstance.put(SourcePoint.INSTANCE_LABEL, instance);
                    labels = withInstance;
                }
                points.add(new SourcePoint(s.metricName(), labels, productKey, ts, s.value()));
            }
        }
        return new Loaded(Collections.unmodifiableList(points), files.size(), nonFinite, reserved, emptyLabels, 0);
    }

    /**
     * The shift that makes dated data relative to the present: the multiple of {@link #SHIFT_UNIT_MS} (one minute) that
     * moves {@code newestMs} to within the minute up to {@code nowMs}, i.e. the largest one with
     * {@code newestMs + shift <= nowMs}; negative when {@code newestMs} is after {@code nowMs}. Pure and thread-safe.
     *
     * @param newestMs the newest timestamp of the data, epoch ms
     * @param nowMs    the present, epoch ms
     * @return the shift in milliseconds, a whole number of minutes
     * @throws ArithmeticException when the difference overflows a long
     */
    public static long presentShiftMs(long newestMs, long nowMs) {
        return Math.multiplyExact(Math.floorDiv(Math.subtractExact(nowMs, newestMs), SHIFT_UNIT_MS), SHIFT_UNIT_MS);
    }

    /**
     * The scrape time encoded in a file name: the last run of digits as Unix seconds, in epoch milliseconds
     * ({@code node-exporter-1795300857.prom} → {@code 1795300857000}); empty when the name has no digits.
     *
     * @throws IllegalArgumentException when the digits do not fit epoch milliseconds
     */
    public static OptionalLong timestampFromFileName(Path file) {
        Path name = file.getFileName();
        if (name == null) {
            return OptionalLong.empty();
        }
        Matcher m = DIGITS.matcher(name.toString());
        String last = null;
        while (m.find()) {
            last = m.group();
        }
        if (last == null) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Math.multiplyExact(Long.parseLong(last), 1000L));
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException(
                    file + ": '" + last + "' in the file name is not a Unix time in seconds");
        }
    }

    private static boolean hasReservedLabel(Map<String, String> labels) {
        for (String name : labels.keySet()) {
            if (name.startsWith("__")) {
                return true;
            }
        }
        return false;
    }
}
