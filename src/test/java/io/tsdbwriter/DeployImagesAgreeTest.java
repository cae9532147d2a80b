package io.tsdbwriter;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The images the pages name are the ones docker-compose.yml runs: every {@code repository:tag} in README.md or a page
 * of docs/ whose repository docker-compose.yml also runs has the compose file's tag (a page that quotes an older or a
 * newer VictoriaMetrics than the demo stack starts fails here).
 */
class DeployImagesAgreeTest {

    private static final Pattern COMPOSE_IMAGE = Pattern.compile("(?m)^\\s*image:\\s*([\\w./-]+):([\\w.-]+)\\s*$");
    private static final Pattern DOC_IMAGE = Pattern.compile("([a-z0-9][\\w.-]*/[\\w.-]+):(v?[0-9][\\w.-]*)");

    @Test
    void everyImageTheDocsNameHasTheComposeFilesTag() throws IOException {
        Map<String, String> tags = new HashMap<>();
        Matcher c = COMPOSE_IMAGE.matcher(Files.readString(Path.of("docker-compose.yml")));
        while (c.find()) {
            tags.put(c.group(1), c.group(2));
        }
        assertThat(tags).as("images of docker-compose.yml").containsKey("victoriametrics/vminsert");

        List<Path> pages = new ArrayList<>(List.of(Path.of("README.md")));
        try (Stream<Path> s = Files.walk(Path.of("docs"))) {
            s.filter(p -> p.toString().endsWith(".md") && !p.startsWith(Path.of("docs", "benchmarks")))
                    .filter(p -> !p.endsWith("benchmarks-archive.md"))
                    .forEach(pages::add);
        }
        List<String> wrong = new ArrayList<>();
        for (Path page : pages) {
            List<String> lines = Files.readAllLines(page);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = DOC_IMAGE.matcher(lines.get(i));
                while (m.find()) {
                    String tag = tags.get(m.group(1));
                    if (tag != null && !tag.equals(m.group(2))) {
                        wrong.add(page + ":" + (i + 1) + ": " + m.group() + " (compose: " + tag + ")");
                    }
                }
            }
        }
        assertThat(wrong).as("image tags that differ from docker-compose.yml").isEmpty();
    }
}
