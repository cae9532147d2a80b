package io.tsdbwriter.produce;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** The real node_exporter scrapes the project ships: {@code examples/data} (also bundled in the jar, {@link BundledScrapes}). */
public final class NodeExporterFiles {

    private NodeExporterFiles() {}

    /** The directory, from system property {@code tsdbwriter.data} when set (the pom sets it), else {@code examples/data}. */
    public static Path dir() {
        String data = System.getProperty("tsdbwriter.data");
        return data != null ? Path.of(data) : Path.of("examples", "data");
    }

    /** All {@code *.prom} files, sorted by name (= by scrape time). */
    public static List<Path> all() {
        try (Stream<Path> files = Files.list(dir())) {
            return files.filter(p -> p.getFileName().toString().endsWith(".prom"))
                    .sorted()
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException("the real scrapes are expected in " + dir().toAbsolutePath(), e);
        }
    }

    /** The first scrape, {@code node-exporter-1795300857.prom}. */
    public static Path first() {
        return all().get(0);
    }
}
