package io.tsdbwriter.config;

import java.util.Locale;

/**
 * How the writer takes records from Kafka ({@code --consumer-mode}; docs/scaling.md).
 */
public enum ConsumerMode {
    /**
     * A consumer group: partitions assigned to members, each partition read by P SegmentConsumers of one process,
     * offsets committed at segment ends (DESIGN §5). The default.
     */
    SEGMENTS,
    /**
     * A share group (KIP-932, Apache Kafka ≥ 4.2): records of one partition handed to many consumers, each
     * acknowledged on its own once the TSDB acknowledged its samples; scales past the partition count across processes,
     * gives no order.
     */
    SHARE;

    /** The flag value. */
    public String flag() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @throws IllegalArgumentException for anything but {@code segments} or {@code share}
     */
    public static ConsumerMode parse(String value) {
        String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
        for (ConsumerMode m : values()) {
            if (m.flag().equals(v)) {
                return m;
            }
        }
        throw new IllegalArgumentException("--consumer-mode must be segments or share, got '" + value + "'");
    }
}
