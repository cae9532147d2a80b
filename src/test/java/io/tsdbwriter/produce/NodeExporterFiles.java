package io.tsdbwriter.produce;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** The real node_exporter scrapes: {@code ../shared/data/node-exporter} beside the project (CI puts {@code shared/} there). */
public final class NodeExporterFiles {

    private NodeExporterFiles() {
    }

    /** The directory, from system property {@code tsdbwriter.shared} when set, else {@code ../shared}. */
    public static Path dir() {
        String shared = System.getProperty("tsdbwriter.shared");
        Path base = shared != null ? Path.of(shared) : Path.of("..", "shared");
        return base.resolve("data").resolve("node-exporter");
    }

    /** All {@code *.prom} files, sorted by name (= by scrape time). */
    public static List<Path> all() {
        try (Stream<Path> files = Files.list(dir())) {
            return files.filter(p -> p.getFileName().toString().endsWith(".prom")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("the real scrapes are expected in " + dir().toAbsolutePath(), e);
        }
    }

    /** The first scrape, {@code node-exporter-1795300857.prom}. */
    public static Path first() {
        return all().get(0);
    }
}
