package io.tsdbwriter.write;

/**
 * The Prometheus Remote-Write message a run sends with {@code --output remote-write} ({@code --remote-write-version}).
 * Each version names its protobuf message as Prometheus' {@code protobuf_message} setting and
 * {@code --web.remote-write-receiver.accepted-protobuf-messages} flag name it, and the request headers of its
 * specification: 1.0 (https://prometheus.io/docs/specs/remote_write_spec/) and 2.0
 * (https://prometheus.io/docs/specs/remote_write_spec_2_0/, "Protocol").
 */
public enum RemoteWriteVersion {
    /** Remote-Write 1.0: {@code prometheus.WriteRequest}, {@code X-Prometheus-Remote-Write-Version: 0.1.0} (the default). */
    V1("1", "prometheus.WriteRequest", "application/x-protobuf", "0.1.0"),
    /**
     * Remote-Write 2.0: {@code io.prometheus.write.v2.Request} (a symbol table per request; series reference their
     * label strings by index), {@code Content-Type: application/x-protobuf;proto=io.prometheus.write.v2.Request},
     * {@code X-Prometheus-Remote-Write-Version: 2.0.0}; the receiver answers how many samples it wrote in
     * {@code X-Prometheus-Remote-Write-Samples-Written}.
     */
    V2("2", "io.prometheus.write.v2.Request", "application/x-protobuf;proto=io.prometheus.write.v2.Request", "2.0.0");

    /** Response header of a 2.0 receiver: samples written of the request (the specification's "Required Written Response Headers"). */
    public static final String SAMPLES_WRITTEN_HEADER = "X-Prometheus-Remote-Write-Samples-Written";

    /** Response header of a 2.0 receiver: native histograms written of the request (samples do not count them). */
    public static final String HISTOGRAMS_WRITTEN_HEADER = "X-Prometheus-Remote-Write-Histograms-Written";

    /**
     * What a 2.0 receiver says it wrote of the writer's samples, a native histogram counting as one: the sum of
     * {@link #SAMPLES_WRITTEN_HEADER} ({@code samples}) and {@link #HISTOGRAMS_WRITTEN_HEADER} ({@code histograms}) when
     * both are numbers, else {@code samples} as it is (null or blank when absent, for the caller to judge).
     */
    public static String written(String samples, String histograms) {
        if (samples == null || histograms == null || histograms.isBlank()) {
            return samples;
        }
        try {
            return Long.toString(Long.parseLong(samples.trim()) + Long.parseLong(histograms.trim()));
        } catch (NumberFormatException e) {
            return samples;
        }
    }

    private final String flag;
    private final String protobufMessage;
    private final String contentType;
    private final String versionHeader;

    RemoteWriteVersion(String flag, String protobufMessage, String contentType, String versionHeader) {
        this.flag = flag;
        this.protobufMessage = protobufMessage;
        this.contentType = contentType;
        this.versionHeader = versionHeader;
    }

    /** The flag value: {@code 1} or {@code 2}. */
    public String flag() {
        return flag;
    }

    /** The protobuf message's full name, as Prometheus' {@code protobuf_message} names it. */
    public String protobufMessage() {
        return protobufMessage;
    }

    /** The request's {@code Content-Type}. */
    public String contentType() {
        return contentType;
    }

    /** The request's {@code X-Prometheus-Remote-Write-Version}. */
    public String versionHeader() {
        return versionHeader;
    }

    /**
     * The version a flag value names: {@code 1}, {@code 2}, {@code 1.0}, {@code 2.0}, or a {@code protobuf_message} name.
     *
     * @throws IllegalArgumentException for anything else
     */
    public static RemoteWriteVersion parse(String value) {
        String v = value == null ? "" : value.trim();
        for (RemoteWriteVersion r : values()) {
            if (r.flag.equals(v) || (r.flag + ".0").equals(v) || r.protobufMessage.equals(v)) {
                return r;
            }
        }
        throw new IllegalArgumentException("--remote-write-version must be 1 (prometheus.WriteRequest) or 2 "
                + "(io.prometheus.write.v2.Request), got '" + value + "'");
    }
}
