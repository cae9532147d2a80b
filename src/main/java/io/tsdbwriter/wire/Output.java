package io.tsdbwriter.wire;

import java.util.Locale;

/**
 * The output protocols of {@code --output} (DESIGN §6).
 */
public enum Output {
    /** VictoriaMetrics' JSON-lines import API, {@code POST <vm-url>/api/v1/import} (the default). */
    IMPORT("import"),
    /** Prometheus Remote-Write 1.0: protobuf {@code WriteRequest}, snappy block-compressed, to a whole URL. */
    REMOTE_WRITE("remote-write");

    private final String flag;

    Output(String flag) {
        this.flag = flag;
    }

    /** The name used on the command line. */
    public String flag() {
        return flag;
    }

    /**
     * Parses a command-line name ({@code import}, {@code remote-write}; case-insensitive, {@code _} for {@code -}).
     *
     * @throws IllegalArgumentException for anything else
     */
    public static Output parse(String s) {
        String v = s.trim().toLowerCase(Locale.ROOT).replace('_', '-');
        for (Output o : values()) {
            if (o.flag.equals(v)) {
                return o;
            }
        }
        throw new IllegalArgumentException("--output must be import or remote-write, got '" + s + "'");
    }

    @Override
    public String toString() {
        return flag;
    }
}
