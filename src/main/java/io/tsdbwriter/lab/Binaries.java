package io.tsdbwriter.lab;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Where a program the lab runs beside the writer (a relay peer: Telegraf, the Collector) is found. Stateless; thread-safe. */
public final class Binaries {

    private Binaries() {}

    /**
     * Where {@code name}'s binary is looked for: {@code explicit} (its {@code --…-binary} flag), else the variable
     * {@code env}, else {@code ~/.cache/tsdb-writer/bin/<name>} (where {@code scripts/lib.sh} builds it), else
     * {@code name} on the PATH; empty when none is executable.
     */
    public static Optional<Path> locate(Path explicit, String env, String name) {
        if (explicit != null) {
            return Files.isExecutable(explicit) ? Optional.of(explicit) : Optional.empty();
        }
        List<Path> candidates = new ArrayList<>();
        String fromEnv = System.getenv(env);
        if (fromEnv != null && !fromEnv.isBlank()) {
            candidates.add(Path.of(fromEnv));
        }
        candidates.add(Path.of(System.getProperty("user.home"), ".cache", "tsdb-writer", "bin", name));
        for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
            if (!dir.isEmpty()) {
                candidates.add(Path.of(dir, name));
            }
        }
        return candidates.stream().filter(Files::isExecutable).findFirst();
    }
}
