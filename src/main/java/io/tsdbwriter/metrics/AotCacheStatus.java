package io.tsdbwriter.metrics;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Whether this JVM runs with an AOT cache (JDK 25, JEP 483/514/515: {@code -XX:AOTCache=FILE}, built by
 * {@code scripts/aot-cache.sh} or the Dockerfile), as a {@link State} and the one line the writer logs at start. The
 * JVM itself goes on without a cache it cannot use ({@code -XX:AOTMode=auto}, the default): a missing file or one built
 * from another jar, JVM or JVM flags only costs the start-up and JIT CPU the cache saves. This reads the JVM's own input
 * arguments ({@link java.lang.management.RuntimeMXBean}) and whether class data sharing is mapped ({@code java.vm.info}
 * says "sharing"), so the log and {@code --summary-json} ({@code aot_cache}) tell which case it is.
 *
 * <p>Immutable and thread-safe; {@link #current()} never throws.
 *
 * @param state what the JVM did with the cache it was given
 * @param file the cache file as given ({@code -XX:AOTCache} or, training, {@code -XX:AOTCacheOutput})
 */
public record AotCacheStatus(State state, String file) {

    private static final String CACHE_FLAG = "-XX:AOTCache=";
    private static final String OUTPUT_FLAG = "-XX:AOTCacheOutput=";

    /** What the JVM did with its AOT cache flag; {@link #label()} is the summary's {@code aot_cache} value. */
    public enum State {
        /** The cache is mapped: start-up and the method profiles come from it. */
        IN_USE("in_use"),
        /** The file exists but the JVM did not map it: built from another jar, JVM or JVM flags. */
        STALE("stale"),
        /** No such file. */
        MISSING("missing"),
        /** {@code -XX:AOTCacheOutput}: this run trains a cache and writes it at exit. */
        TRAINING("training");

        private final String label;

        State(String label) {
            this.label = label;
        }

        /** The state as written to {@code --summary-json}: in_use, stale, missing or training. */
        public String label() {
            return label;
        }

        /** The state whose {@link #label()} is {@code label} (a summary's {@code aot_cache}), or empty for none. */
        public static Optional<State> ofLabel(String label) {
            for (State s : values()) {
                if (s.label.equals(label)) {
                    return Optional.of(s);
                }
            }
            return Optional.empty();
        }

        /** True when the run pays the warm-up the cache was meant to save: a stale or missing cache. */
        public boolean warns() {
            return this == STALE || this == MISSING;
        }
    }

    /**
     * This JVM's AOT cache status, or empty when no {@code -XX:AOTCache} or {@code -XX:AOTCacheOutput} was given
     * (nothing to say: JDK 21 users and runs without a cache) or the management beans are not there.
     */
    public static Optional<AotCacheStatus> current() {
        try {
            return of(ManagementFactory.getRuntimeMXBean().getInputArguments(), System.getProperty("java.vm.info", ""));
        } catch (RuntimeException e) { // no management beans (e.g. a stripped runtime): say nothing rather than fail
            return Optional.empty();
        }
    }

    /** {@link #current()} for given JVM input arguments and {@code java.vm.info}; package-private for tests. */
    static Optional<AotCacheStatus> of(List<String> jvmArgs, String vmInfo) {
        String cache = null;
        String output = null;
        for (String a : jvmArgs) {
            if (a.startsWith(CACHE_FLAG)) {
                cache = a.substring(CACHE_FLAG.length());
            } else if (a.startsWith(OUTPUT_FLAG)) {
                output = a.substring(OUTPUT_FLAG.length());
            }
        }
        if (output != null) {
            return Optional.of(new AotCacheStatus(State.TRAINING, output));
        }
        if (cache == null) {
            return Optional.empty();
        }
        if (!Files.isRegularFile(Path.of(cache))) {
            return Optional.of(new AotCacheStatus(State.MISSING, cache));
        }
        return Optional.of(new AotCacheStatus(vmInfo.contains("sharing") ? State.IN_USE : State.STALE, cache));
    }

    /** True when the run pays the warm-up the cache was meant to save (a stale or missing cache): log it as a warning. */
    public boolean warns() {
        return state.warns();
    }

    /** The one line for the writer's log. */
    public String line() {
        return switch (state) {
            case TRAINING -> "AOT cache: training run, the JVM writes " + file + " at exit";
            case MISSING ->
                "AOT cache " + file + " missing: starting without it (JIT warm-up costs more CPU; "
                        + "build one with scripts/aot-cache.sh)";
            case STALE ->
                "AOT cache " + file + " not used (stale: built from another jar, JVM or JVM flags): "
                        + "starting without it (rebuild it with scripts/aot-cache.sh)";
            case IN_USE -> "AOT cache " + file + ": in use";
        };
    }
}
