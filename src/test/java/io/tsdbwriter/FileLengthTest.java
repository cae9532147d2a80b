package io.tsdbwriter;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * "No file a reader must scroll" (docs/architecture.md, issue 40): at most {@value #MAX_LONG_FILES} production files
 * over {@value #MAX_LINES} lines, and each of them says at its top, in a line starting {@value #REASON}, why it stays
 * whole (a hand-written hot-path scanner kept in one piece for speed, with its JMH figure).
 */
class FileLengthTest {

    static final int MAX_LINES = 400;
    static final int MAX_LONG_FILES = 3;
    static final String REASON = "// Kept whole over 400 lines:";

    @Test
    void atMostThreeProductionFilesAreOver400LinesAndEachSaysWhy() throws IOException {
        List<Path> longFiles;
        try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
            longFiles = files.filter(p -> p.toString().endsWith(".java")).filter(p -> lines(p).size() > MAX_LINES).sorted().toList();
        }
        assertThat(longFiles).as("files over %d lines", MAX_LINES).hasSizeLessThanOrEqualTo(MAX_LONG_FILES);
        for (Path p : longFiles) {
            assertThat(lines(p).subList(0, 5)).as("%s is over %d lines: its top says why", p, MAX_LINES)
                    .anyMatch(l -> l.startsWith(REASON));
        }
    }

    private static List<String> lines(Path p) {
        try {
            return Files.readAllLines(p);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
