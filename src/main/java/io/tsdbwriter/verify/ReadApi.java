package io.tsdbwriter.verify;

import java.util.Locale;

/**
 * How {@link ReadBackVerifier} reads the samples back: {@code verify --read-api}.
 *
 * <ul>
 *   <li>{@link #VM_EXPORT} ({@code vm-export}): VictoriaMetrics' {@code /api/v1/export}, after
 *       {@code /internal/force_flush};</li>
 *   <li>{@link #PROMETHEUS} ({@code prometheus}): the Prometheus HTTP API's {@code /api/v1/query} of range-vector
 *       selectors, window by window ({@link QueryApiReader}): Prometheus 2 and 3, Thanos query, Mimir; nothing to
 *       flush;</li>
 *   <li>{@link #AUTO} ({@code auto}): as {@code vm-export}, and as {@code prometheus} from the first export that
 *       answers 404 on (VictoriaMetrics serves the export; Prometheus, Thanos and Mimir answer 404).</li>
 * </ul>
 */
public enum ReadApi {
    AUTO("auto"),
    VM_EXPORT("vm-export"),
    PROMETHEUS("prometheus");

    private final String flagValue;

    ReadApi(String flagValue) {
        this.flagValue = flagValue;
    }

    /** The value as {@code --read-api} takes it. */
    public String flagValue() {
        return flagValue;
    }

    /**
     * The read API named {@code value} ({@code auto}, {@code vm-export}, {@code prometheus}; any case).
     *
     * @throws IllegalArgumentException naming the accepted values
     */
    public static ReadApi parse(String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        for (ReadApi a : values()) {
            if (a.flagValue.equals(v)) {
                return a;
            }
        }
        throw new IllegalArgumentException("'" + value + "' is not auto, vm-export or prometheus");
    }

    @Override
    public String toString() {
        return flagValue;
    }
}
