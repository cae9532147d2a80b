package io.tsdbwriter.cli;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Says in one line at start whether this JVM runs with an AOT cache (JDK 25, JEP 483/514/515: {@code -XX:AOTCache=FILE},
 * built by {@code scripts/aot-cache.sh} or the Dockerfile). The JVM itself goes on without a cache it cannot use
 * ({@code -XX:AOTMode=auto}, the default): a missing file or one built from another jar or JVM only costs the start-up
 * CPU the cache saves. This class reads the JVM's own input arguments ({@link java.lang.management.RuntimeMXBean}) and
 * whether class data sharing is mapped ({@code java.vm.info} says "sharing"), so the writer's log tells which case it
 * is. Stateless and thread-safe; never throws.
 */
public final class AotCacheStatus {

    private static final String CACHE_FLAG = "-XX:AOTCache=";
    private static final String OUTPUT_FLAG = "-XX:AOTCacheOutput=";

    private AotCacheStatus() {
    }

    /**
     * The one line about this JVM's AOT cache, or empty when no {@code -XX:AOTCache} or {@code -XX:AOTCacheOutput} was
     * given (nothing to say: JDK 21 users and runs without a cache).
     */
    public static Optional<String> line() {
        try {
            return line(ManagementFactory.getRuntimeMXBean().getInputArguments(), System.getProperty("java.vm.info", ""));
        } catch (RuntimeException e) { // no management beans (e.g. a stripped runtime): say nothing rather than fail
            return Optional.empty();
        }
    }

    /** {@link #line()} for given JVM input arguments and {@code java.vm.info}; package-private for tests. */
    static Optional<String> line(List<String> jvmArgs, String vmInfo) {
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
            return Optional.of("AOT cache: training run, the JVM writes " + output + " at exit");
        }
        if (cache == null) {
            return Optional.empty();
        }
        if (!Files.isRegularFile(Path.of(cache))) {
            return Optional.of("AOT cache " + cache + " missing: starting without it (JIT warm-up costs more CPU; "
                    + "build one with scripts/aot-cache.sh)");
        }
        if (!vmInfo.contains("sharing")) {
            return Optional.of("AOT cache " + cache + " not used (stale: built from another jar, JVM or JVM flags): "
                    + "starting without it (rebuild it with scripts/aot-cache.sh)");
        }
        return Optional.of("AOT cache " + cache + ": in use");
    }
}
