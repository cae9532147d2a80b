package io.tsdbwriter.produce;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.FileSystem;
import java.nio.file.FileSystemNotFoundException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The 20 real node_exporter scrapes shipped inside the jar ({@code examples/data} of the repository, resource folder
 * {@value #RESOURCE_DIR}): the default input of {@code produce}, {@code verify}, {@code bench}, {@code capacity} and
 * the demo, so the jar's commands work from any directory without a data folder of their own.
 *
 * <p>{@link #directory()} copies them once per process into a temporary directory (removed at exit) and returns it:
 * the commands read files. Thread-safe.
 */
public final class BundledScrapes {

    /** Where the scrapes lie on the class path. */
    public static final String RESOURCE_DIR = "io/tsdbwriter/data/node-exporter";
    /** What {@code --help} texts call them. */
    public static final String DESCRIPTION =
            "the 20 real node_exporter scrapes bundled in the jar (examples/data of the repository)";

    private static Path extracted;

    private BundledScrapes() {}

    /**
     * A directory holding the bundled {@code *.prom} files, made on first use.
     *
     * @throws UncheckedIOException when the jar holds none (a build without {@code examples/data}) or they cannot be copied
     */
    public static synchronized Path directory() {
        if (extracted != null) {
            return extracted;
        }
        try {
            Path dir = Files.createTempDirectory("tsdb-writer-scrapes-");
            dir.toFile().deleteOnExit();
            List<String> names = names();
            if (names.isEmpty()) {
                throw new IOException("no *.prom under " + RESOURCE_DIR + " on the class path");
            }
            for (String name : names) {
                Path target = dir.resolve(name);
                try (InputStream in =
                        BundledScrapes.class.getClassLoader().getResourceAsStream(RESOURCE_DIR + "/" + name)) {
                    if (in == null) {
                        throw new IOException("resource " + RESOURCE_DIR + "/" + name + " missing");
                    }
                    Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
                }
                target.toFile().deleteOnExit();
            }
            extracted = dir;
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("the bundled scrapes cannot be read: " + e.getMessage(), e);
        }
    }

    /** The bundled {@code *.prom} file names, sorted (= by scrape time). */
    static List<String> names() throws IOException {
        URL url = BundledScrapes.class.getClassLoader().getResource(RESOURCE_DIR);
        if (url == null) {
            return List.of();
        }
        URI uri;
        try {
            uri = url.toURI();
        } catch (URISyntaxException e) {
            throw new IOException(e);
        }
        if ("jar".equals(uri.getScheme())) {
            FileSystem fs;
            boolean opened = false;
            try {
                fs = FileSystems.getFileSystem(uri);
            } catch (FileSystemNotFoundException e) {
                fs = FileSystems.newFileSystem(uri, Map.of());
                opened = true;
            }
            try {
                return list(fs.getPath(RESOURCE_DIR));
            } finally {
                if (opened) {
                    fs.close();
                }
            }
        }
        return list(Path.of(uri));
    }

    private static List<String> list(Path dir) throws IOException {
        List<String> names = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".prom"))
                    .sorted()
                    .forEach(names::add);
        }
        return names;
    }
}
