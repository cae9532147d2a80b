package io.tsdbwriter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.tsdbwriter.write.http.SafeUrl;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.MDC;
import picocli.CommandLine;

/** {@code --log-format}: text lines carry an ISO-8601 date, time and zone; json lines are one object each, no secret. */
class LogFormatTest {

    private static final Logger LOG = LoggerFactory.getLogger(LogFormatTest.class);

    @AfterEach
    void backToText() {
        LogFormat.TEXT.apply();
    }

    /** What {@code format} writes to stderr for {@code lines}. */
    private static List<String> stderr(LogFormat format, Runnable lines) {
        PrintStream err = System.err;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            format.apply();
            lines.run();
        } finally {
            System.setErr(err);
        }
        return captured.toString(StandardCharsets.UTF_8).lines().toList();
    }

    @Test
    void textLinesStartWithAnIso8601DateTimeAndZone() {
        List<String> lines = stderr(LogFormat.TEXT, () -> LOG.info("hello"));

        assertThat(lines).hasSize(1);
        assertThat(lines.get(0))
                .matches(
                        "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}(Z|[+-]\\d{2}:\\d{2}) INFO  \\[.+\\] .* - hello");
    }

    @Test
    void jsonLinesAreOneObjectEachWithWhatATextLineSaysAndNoMore() throws Exception {
        String url = "http://writer:s3cr3t@vm-a:8428";
        List<String> lines = stderr(LogFormat.JSON, () -> {
            MDC.put("token", "m4dc");
            try {
                LOG.warn("write to {} failed: \"{}\"", SafeUrl.redact(url), "quoted");
            } finally {
                MDC.remove("token");
            }
        });

        assertThat(lines).hasSize(1);
        JsonNode j = new ObjectMapper().readTree(lines.get(0));
        assertThat(j.path("level").asText()).isEqualTo("WARN");
        assertThat(j.path("loggerName").asText()).isEqualTo(LogFormatTest.class.getName());
        assertThat(j.path("formattedMessage").asText()).isEqualTo("write to http://vm-a:8428 failed: \"quoted\"");
        assertThat(j.path("timestamp").asLong()).isPositive();
        assertThat(j.path("time").asText())
                .as("the text line's ISO-8601 time, first")
                .matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}(Z|[+-]\\d{2}:\\d{2})");
        assertThat(OffsetDateTime.parse(j.path("time").asText()).toInstant().toEpochMilli())
                .isEqualTo(j.path("timestamp").asLong());
        assertThat(lines.get(0)).startsWith("{\"time\":\"");
        assertThat(j.has("arguments"))
                .as("the arguments are in formattedMessage already")
                .isFalse();
        assertThat(j.has("mdc")).isFalse();
        assertThat(j.has("context")).isFalse();
        assertThat(lines.get(0)).doesNotContain("s3cr3t").doesNotContain("m4dc");
    }

    @Test
    void theFlagSwitchesTheFormatAndABadValueIsOneLineAndExitTwo() {
        CommandLine cl = Main.commandLine(Map.of());
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err, true));
        cl.setOut(new PrintWriter(new StringWriter(), true));

        assertThat(cl.execute("run", "--topic", "t", "--log-format", "xml")).isEqualTo(2);
        assertThat(err.toString().lines().toList())
                .singleElement()
                .asString()
                .startsWith("tsdb-writer:")
                .contains("--log-format must be text or json, got 'xml'");

        // run --log-format json with a bad --output: the format is applied at start, then toConfig refuses (exit 2)
        List<String> lines = stderr(LogFormat.TEXT, () -> {
            assertThat(Main.commandLine(Map.of("TSDB_WRITER_TOPICC", "t"))
                            .execute("run", "--topic", "t", "--log-format", "json", "--output", "json"))
                    .isEqualTo(2);
        });
        assertThat(lines)
                .anyMatch(
                        l -> l.startsWith("{") && l.contains("\"level\":\"WARN\"") && l.contains("TSDB_WRITER_TOPICC"));

        // like every option of run, TSDB_WRITER_LOG_FORMAT sets it (a container's environment) and is no unknown
        // variable
        List<String> fromEnv = stderr(LogFormat.TEXT, () -> {
            assertThat(Main.commandLine(Map.of("TSDB_WRITER_LOG_FORMAT", "json", "TSDB_WRITER_TOPICC", "t"))
                            .execute("run", "--topic", "t", "--output", "json"))
                    .isEqualTo(2);
        });
        assertThat(fromEnv)
                .as("the log line in json; picocli's usage error stays its one plain line")
                .hasSize(2);
        assertThat(fromEnv.get(0))
                .startsWith("{")
                .contains("TSDB_WRITER_TOPICC")
                .doesNotContain("LOG_FORMAT");
        assertThat(fromEnv.get(1)).startsWith("tsdb-writer: --output must be");
    }
}
